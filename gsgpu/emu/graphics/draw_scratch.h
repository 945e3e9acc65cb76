// Working storage one draw's blocks fill and the next draw reuses. The fast mode's fragment batches
// (256 warps: about 4 MiB of lanes, outputs and primitives) were allocated and freed per draw, and
// glibc maps allocations of that size afresh each time: the kernel's page faults and zeroing were
// a quarter of a tiny-triangle frame's CPU time (docs/performance.md, session 15). The command
// processor keeps one DrawScratch for the draws it runs one after the other; nothing a draw leaves
// in it is read by the next (each block clears or overwrites what it takes).
#pragma once

#include "gsgpu/emu/graphics/fragment_program.h"
#include "gsgpu/emu/graphics/geometry_thread.h"
#include "gsgpu/emu/graphics/merge_worker.h"

namespace gsgpu::graphics {

struct DrawScratch {
  FragmentProgramStage::BatchStorage fragment_batches;
  // The fast mode's worker thread, started by the first draw that hands a batch over and kept for
  // the next (a thread per draw cost its creation and join on every draw).
  MergeWorker merge_worker;
  // The fast mode's geometry thread (geometry_thread.h): the channel's batches and the thread (a
  // MergeWorker runs any one job at a time; here the geometry engine's whole draw), both kept for
  // the next draw. The thread is declared last so that it is joined before the channel goes.
  TriangleChannel triangles;
  MergeWorker geometry_worker;
};

}  // namespace gsgpu::graphics
