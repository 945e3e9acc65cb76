// Fast mode's geometry thread with programs on the shader cores (docs/graphics.md "Reference and
// fast modes"): the geometry thread runs the vertex program's batches while the draw's thread and
// the merge worker run the fragment program's, on the same cores at once. The frames, counters and
// faults are the reference mode's (tests/gsgpu/emu/graphics/grid_scene.h: depth testing and
// blending over a grid of 2,592 small triangles, some cut by the near plane).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "gsgpu/emu/dispatch_backend.h"
#include "gsgpu/emu/program_runner.h"
#include "gsgpu/isa/assembler.h"
#include "tests/gsgpu/emu/graphics/grid_scene.h"

namespace gsgpu::graphics {
namespace {

using grid_test::draw;
using grid_test::expect_same;
using grid_test::GridScene;
using grid_test::Outcome;

ShaderProgram upload(GridScene& s, const std::string& source, uint32_t varyings, uint32_t vregs) {
  std::vector<uint32_t> code;
  std::string error;
  EXPECT_TRUE(isa::assemble(source, &code, &error)) << error << "\n" << source;
  return ShaderProgram{s.memory.upload(code), uint32_t(code.size() * 4), 0, vregs, 0, varyings};
}

// The grid's two attributes (position, colour) exported as the position and varyings 0..3, and a
// fragment program that interpolates the colour as the varying stand-in does.
void use_programs(GridScene& s, bool fragment_program) {
  std::string vs;
  for (int r = 0; r < 8; ++r) vs += "v_export_vertex_f32 v" + std::to_string(r) + ", " + std::to_string(r) + "\n";
  s.state.vertex = VertexMode::kProgram;
  s.state.vertex_program = upload(s, vs + "s_end\n", 4, 8);
  if (!fragment_program) {
    s.state.fragment = FragmentMode::kVaryingColor;
    return;
  }
  std::string fs;
  for (int k = 0; k < 4; ++k)
    fs += "v_interp_persp_f32 v0, " + std::to_string(k) + "\nv_export_f32 v0, " + std::to_string(k) + "\n";
  s.state.fragment = FragmentMode::kProgram;
  s.state.fragment_program = upload(s, fs + "s_end\n", 4, 1);
}

// A runner per draw, as the command processor makes one (its budgets are the draw's).
struct Cores {
  std::unique_ptr<DispatchBackend> backend = make_shader_backend(ShaderCoreSettings{2, 8, 2});
  std::unique_ptr<BackendProgramRunner> runner;
  std::function<void(GraphicsPipeline&)> setup(GridScene& s, uint64_t draw_budget,
                                               uint64_t fragment_budget = GraphicsPipeline::kDefaultFragmentBudget) {
    return [this, &s, draw_budget, fragment_budget](GraphicsPipeline& gp) {
      runner = std::make_unique<BackendProgramRunner>(*backend, s.memory,
                                                      BackendProgramRunner::kDefaultWarpInstructionBudget, draw_budget);
      gp.set_program_runner(runner.get());
      gp.set_fragment_budget(fragment_budget);
    };
  }
};

TEST(GeometryThreadPrograms, VertexAndFragmentProgramsGiveTheReferencesBytesAndCounters) {
  GridScene s;
  Cores cores;
  DrawScratch scratch;
  for (int draw_index = 0; draw_index < 3; ++draw_index) {
    SCOPED_TRACE(draw_index);
    if (draw_index == 1) {
      s.indexed_strips();
    } else {
      s.triangle_list();
    }
    use_programs(s, draw_index < 2);
    const auto setup = cores.setup(s, BackendProgramRunner::kDefaultDrawInstructionBudget);
    const Outcome reference = draw(s, DrawMode::kReference, nullptr, setup);
    ASSERT_FALSE(reference.fault) << *reference.fault;
    for (int run = 0; run < 2; ++run) expect_same(draw(s, DrawMode::kFast, &scratch, setup), reference);
  }
}

// The vertex programs' share of the draw budget runs out part-way (each kind of program has its
// own, so where it runs out does not depend on how the threads interleave), and the fragment
// budget runs out while the vertex program still runs ahead on the geometry thread: the fault,
// counters and bytes are the reference's. (The fragments are the varying stand-in's: a fragment
// program's batches are larger in fast mode, so a fault there leaves fewer quads merged.)
TEST(GeometryThreadPrograms, BudgetsRunningOutMidDrawStopItWhereTheReferenceStops) {
  GridScene s;
  Cores cores;
  DrawScratch scratch;
  s.triangle_list();
  use_programs(s, false);
  const Outcome vertex_budget = draw(s, DrawMode::kReference, nullptr, cores.setup(s, 5000));
  ASSERT_TRUE(vertex_budget.fault);
  EXPECT_NE(vertex_budget.fault->find("vertex program"), std::string::npos) << *vertex_budget.fault;
  const Outcome fragments = draw(s, DrawMode::kReference, nullptr,
                                 cores.setup(s, BackendProgramRunner::kDefaultDrawInstructionBudget, 4000));
  ASSERT_TRUE(fragments.fault);
  EXPECT_NE(fragments.fault->find("fragment budget"), std::string::npos) << *fragments.fault;
  for (int run = 0; run < 3; ++run) {
    expect_same(draw(s, DrawMode::kFast, &scratch, cores.setup(s, 5000)), vertex_budget);
    expect_same(draw(s, DrawMode::kFast, &scratch, cores.setup(s, BackendProgramRunner::kDefaultDrawInstructionBudget, 4000)),
                fragments);
  }
}

}  // namespace
}  // namespace gsgpu::graphics
