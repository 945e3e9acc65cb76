// The three workloads of bench_draw (Vulkan) and bench_gl (GLES 2.0), issue 11 acceptance 5: the
// geometry both programs draw into a 256 x 256 target, and their registration as Google Benchmark
// runs named <workload>/<device>, each with its rate counter.
#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bench_graphics {

constexpr unsigned kSize = 256;   // the render target's width and height
constexpr int kFillLayers = 8;    // FlatFill: full-screen rectangles per frame
constexpr unsigned kManyDraws = 256;  // ManyDraws: draws per frame, one triangle each
constexpr unsigned kGrid = 128;   // TinyTriangles: a kGrid x kGrid grid of 2-pixel triangles

// Clip-space x, y pairs of a triangle list.
using Positions = std::vector<float>;

// Two triangles covering the axis-aligned rectangle [x0, x1] x [y0, y1].
inline void add_rectangle(Positions* v, float x0, float y0, float x1, float y1) {
  v->insert(v->end(), {x0, y0, x1, y0, x0, y1, x0, y1, x1, y0, x1, y1});
}

inline Positions full_screen_layers(int layers) {
  Positions v;
  for (int i = 0; i < layers; ++i) add_rectangle(&v, -1, -1, 1, 1);
  return v;
}

// Cells of 2 x 2 pixels, each with one right triangle of area 2 pixels.
inline Positions tiny_triangles(unsigned per_side) {
  Positions v;
  const float cell = 2.0f / float(per_side);
  for (unsigned y = 0; y < per_side; ++y) {
    for (unsigned x = 0; x < per_side; ++x) {
      const float x0 = -1 + cell * float(x), y0 = -1 + cell * float(y);
      v.insert(v.end(), {x0, y0, x0 + cell, y0, x0, y0 + cell});
    }
  }
  return v;
}

// One frame of each workload on one device (submit and wait, or draw and glFinish).
struct Frames {
  std::function<void()> flat_fill, long_fragment, tiny_triangles;
};

// Registers FlatFill/<device>, LongFragment/<device> and TinyTriangles/<device>. Each runs one
// untimed frame first: the first frame compiles shaders on some drivers.
inline void register_workloads(const std::string& device, const Frames& frames) {
  const std::pair<const char*, std::function<void()>> runs[] = {
      {"FlatFill", frames.flat_fill}, {"LongFragment", frames.long_fragment}, {"TinyTriangles", frames.tiny_triangles}};
  const double per_frame[] = {double(kSize) * kSize * kFillLayers, double(kSize) * kSize, double(kGrid) * kGrid};
  const char* counters[] = {"pixels/s", "pixels/s", "triangles/s"};
  for (int i = 0; i < 3; ++i) {
    std::function<void()> frame = runs[i].second;
    const double items = per_frame[i];
    const std::string counter = counters[i];
    benchmark::RegisterBenchmark((std::string(runs[i].first) + "/" + device).c_str(),
                                 [frame, items, counter](benchmark::State& state) {
                                   frame();
                                   for (auto _ : state) frame();
                                   state.counters[counter] = benchmark::Counter(
                                       double(state.iterations()) * items, benchmark::Counter::kIsRate);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

// Registers ManyDraws/<device>: `frame` makes kManyDraws draws; the counter is draws per second.
inline void register_many_draws(const std::string& device, std::function<void()> frame) {
  benchmark::RegisterBenchmark(("ManyDraws/" + device).c_str(),
                               [frame](benchmark::State& state) {
                                 frame();
                                 for (auto _ : state) frame();
                                 state.counters["draws/s"] = benchmark::Counter(
                                     double(state.iterations()) * kManyDraws, benchmark::Counter::kIsRate);
                               })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace bench_graphics
