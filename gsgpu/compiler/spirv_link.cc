#include "gsgpu/compiler/spirv_link.h"

#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "gsgpu/compiler/subprocess.h"

namespace gsgpu::compiler {
namespace {

constexpr size_t kHeaderWords = 5;
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kVersion10 = 0x00010000;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kNoSignedWrap = 4469, kNoUnsignedWrap = 4470;

constexpr uint32_t kLinkageAttributes = 41, kLinkageExport = 0;

// A literal string operand: bytes little-endian in words, up to the NUL.
std::string literal_string(std::span<const uint32_t> words) {
  std::string out;
  for (uint32_t w : words)
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((w >> (8 * b)) & 0xff);
      if (c == '\0') return out;
      out.push_back(c);
    }
  return out;
}

// The names a module exports (OpDecorate LinkageAttributes "name" Export). Malformed instructions
// are skipped: the validator or spirv-link refuses them.
std::vector<std::string> exported_names(std::span<const uint32_t> module) {
  std::vector<std::string> names;
  for (size_t at = kHeaderWords; at < module.size();) {
    const uint32_t words = module[at] >> 16;
    if (words == 0 || words > module.size() - at) break;
    const std::span<const uint32_t> inst = module.subspan(at, words);
    at += words;
    if ((inst[0] & 0xffff) != kOpDecorate || words < 5 || inst[2] != kLinkageAttributes) continue;
    if (inst[words - 1] == kLinkageExport) names.push_back(literal_string(inst.subspan(3, words - 4)));
  }
  return names;
}

// spirv-link (2023.1) keeps both definitions of a name two modules export; C's rule, and
// OpenCL's, is that one program defines it once. Empty, or a message naming the symbol and units.
std::string duplicate_export(const std::vector<std::vector<uint32_t>>& modules) {
  std::unordered_map<std::string, size_t> first_unit;
  for (size_t i = 0; i < modules.size(); ++i)
    for (std::string& name : exported_names(modules[i])) {
      auto [it, fresh] = first_unit.emplace(std::move(name), i);
      if (!fresh && it->second != i)
        return "error: '" + it->first + "' is defined in unit " + std::to_string(it->second) + " and in unit " +
               std::to_string(i) + "\n";
    }
  return "";
}

bool is_wrap_hint(std::span<const uint32_t> inst) {
  return (inst[0] & 0xffff) == kOpDecorate && inst.size() >= 3 &&
         (inst[2] == kNoSignedWrap || inst[2] == kNoUnsignedWrap);
}

}  // namespace

std::vector<uint32_t> as_spirv_1_0(std::span<const uint32_t> module) {
  std::vector<uint32_t> unchanged(module.begin(), module.end());
  if (module.size() < kHeaderWords || module[0] != kMagic) return unchanged;
  std::vector<uint32_t> out(module.begin(), module.begin() + kHeaderWords);
  out[1] = kVersion10;
  for (size_t at = kHeaderWords; at < module.size();) {
    const uint32_t words = module[at] >> 16;
    // A zero or overlong word count: not a module this can walk; the validator says why.
    if (words == 0 || words > module.size() - at) return unchanged;
    const std::span<const uint32_t> inst = module.subspan(at, words);
    if (!is_wrap_hint(inst)) out.insert(out.end(), inst.begin(), inst.end());
    at += words;
  }
  return out;
}

BuildStatus link_spirv(const std::vector<std::vector<uint32_t>>& modules, bool library, std::vector<uint32_t>* out,
                       std::string* log) {
  log->clear();
  const Toolchain& tools = toolchain();
  if (tools.spirv_link.empty()) {
    *log = "clLinkProgram of several units needs spirv-link (package spirv-tools), which was not found; set "
           "GSVIRT_SPIRV_LINK to its path\n";
    return BuildStatus::kToolMissing;
  }
  if (modules.empty() || modules.size() > kMaxLinkedModules) {
    *log = "a link takes 1 to " + std::to_string(kMaxLinkedModules) + " modules\n";
    return BuildStatus::kCompileError;
  }
  if (std::string twice = duplicate_export(modules); !twice.empty()) {
    *log = twice;
    return BuildStatus::kCompileError;
  }
  TempDir dir;
  if (!dir.ok()) {
    *log = std::string("cannot create a temporary directory: ") + std::strerror(errno) + "\n";
    return BuildStatus::kInternalError;
  }
  std::vector<std::string> argv = {tools.spirv_link};
  // A library keeps its exports and may import what a later link provides.
  if (library) argv.insert(argv.end(), {"--create-library", "--allow-partial-linkage"});
  argv.insert(argv.end(), {"--target-env", "opencl1.2", "--verify-ids"});
  for (size_t i = 0; i < modules.size(); ++i) {
    const std::string name = "unit" + std::to_string(i) + ".spv";
    if (!write_file(dir.file(name), modules[i].data(), modules[i].size() * sizeof(uint32_t))) {
      *log = "cannot write " + name + "\n";
      return BuildStatus::kInternalError;
    }
    argv.push_back(name);
  }
  argv.insert(argv.end(), {"-o", "linked.spv"});
  ToolOptions run;
  run.work_dir = dir.path();
  run.deadline = build_deadline();
  const ToolRun linked = run_tool(argv, run);
  *log = linked.output;
  if (!linked.started) {
    *log += "spirv-link could not be started\n";
    return BuildStatus::kInternalError;
  }
  if (linked.exit_code != 0) {
    *log += "spirv-link could not link the program's units\n";
    return BuildStatus::kCompileError;
  }
  std::string bytes;
  if (!read_file(dir.file("linked.spv"), &bytes) || bytes.empty() || bytes.size() % 4 != 0) {
    *log += "spirv-link wrote no valid SPIR-V file\n";
    return BuildStatus::kInternalError;
  }
  out->assign(bytes.size() / 4, 0);
  std::memcpy(out->data(), bytes.data(), bytes.size());
  return BuildStatus::kSuccess;
}

}  // namespace gsgpu::compiler
