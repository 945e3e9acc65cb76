// Post-dominators by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm") run on the reversed CFG rooted at the exit block. Nothing here assumes the
// block order llvm-spirv produced.
#include "gsgpu/compiler/cfg.h"

#include <algorithm>

namespace gsgpu::compiler {

std::vector<uint32_t> layout_blocks(const MFunction& f) {
  std::vector<uint8_t> state(f.blocks.size(), 0);  // 0 new, 1 on stack, 2 done
  std::vector<uint32_t> postorder;
  // Iterative DFS: (block, next successor index).
  std::vector<std::pair<uint32_t, size_t>> stack{{f.entry, 0}};
  state[f.entry] = 1;
  while (!stack.empty()) {
    auto& [block, next] = stack.back();
    const std::vector<uint32_t> succs = f.successors(block);
    if (next < succs.size()) {
      // Visit the fall-through candidate (the "else" side, successors[1]) last, so it lands right
      // after the branch in reverse postorder.
      const uint32_t s = succs[succs.size() - 1 - next];
      ++next;
      if (state[s] == 0) {
        state[s] = 1;
        stack.push_back({s, 0});
      }
      continue;
    }
    state[block] = 2;
    postorder.push_back(block);
    stack.pop_back();
  }
  std::vector<uint32_t> order(postorder.rbegin(), postorder.rend());
  auto exit = std::find(order.begin(), order.end(), f.exit);
  if (exit != order.end()) {
    order.erase(exit);
    order.push_back(f.exit);
  } else {
    order.push_back(f.exit);  // an entry that never ends still needs its s_end for the layout
  }
  return order;
}

std::vector<uint32_t> immediate_post_dominators(const MFunction& f, const std::vector<uint32_t>& reachable) {
  const size_t n = f.blocks.size();
  std::vector<uint8_t> in_cfg(n, 0);
  for (uint32_t b : reachable) in_cfg[b] = 1;
  std::vector<std::vector<uint32_t>> succs(n), preds(n);
  for (uint32_t b : reachable) {
    for (uint32_t s : f.successors(b)) {
      if (!in_cfg[s]) continue;
      succs[b].push_back(s);
      preds[s].push_back(b);
    }
  }
  // Which blocks reach the exit; the others get a virtual edge to it.
  std::vector<uint8_t> reaches(n, 0);
  std::vector<uint32_t> work{f.exit};
  reaches[f.exit] = 1;
  while (!work.empty()) {
    const uint32_t b = work.back();
    work.pop_back();
    for (uint32_t p : preds[b])
      if (!reaches[p]) {
        reaches[p] = 1;
        work.push_back(p);
      }
  }
  for (uint32_t b : reachable) {
    if (!reaches[b] && b != f.exit) {
      succs[b].push_back(f.exit);
      preds[f.exit].push_back(b);
    }
  }
  // Postorder of the reversed graph from the exit.
  std::vector<int> order_index(n, -1);
  std::vector<uint32_t> postorder;
  std::vector<uint8_t> seen(n, 0);
  std::vector<std::pair<uint32_t, size_t>> stack{{f.exit, 0}};
  seen[f.exit] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    if (next < preds[b].size()) {
      const uint32_t p = preds[b][next++];
      if (!seen[p]) {
        seen[p] = 1;
        stack.push_back({p, 0});
      }
      continue;
    }
    order_index[b] = static_cast<int>(postorder.size());
    postorder.push_back(b);
    stack.pop_back();
  }
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> ipdom(n, kNone);
  ipdom[f.exit] = f.exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (order_index[a] < order_index[b]) a = ipdom[a];
      while (order_index[b] < order_index[a]) b = ipdom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {
      const uint32_t b = *it;
      if (b == f.exit) continue;
      uint32_t best = kNone;
      for (uint32_t s : succs[b]) {
        if (ipdom[s] == kNone) continue;
        best = best == kNone ? s : intersect(s, best);
      }
      if (best != kNone && ipdom[b] != best) {
        ipdom[b] = best;
        changed = true;
      }
    }
  }
  ipdom[f.exit] = kNone;
  return ipdom;
}

}  // namespace gsgpu::compiler
