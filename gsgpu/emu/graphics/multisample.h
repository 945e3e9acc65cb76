// Multisampling (docs/graphics.md "Multisampling"): 1, 2 or 4 samples per pixel at Vulkan's standard
// sample locations, so coverage is fixed by the spec (standardSampleLocations) and comparable bit for
// bit with any other implementation that uses them.
//
// Memory: a multisampled target holds the samples of a pixel side by side, sample s of pixel (x, y)
// at row y, column x * samples + s; a row is width * samples texels. So the output merger treats a
// target of `samples` samples as one `samples` times wider, and a resolve reads `samples` adjacent
// texels.
//
// The fragment is shaded once per pixel (no sample shading); its colour goes to every covered sample
// that passes the sample mask, alpha to coverage, and that sample's own depth / stencil test. Depth
// is interpolated at each sample's location (the pixel-centre depth plus the plane's slopes times the
// sample's offset from the centre); a depth the shader exports applies to every sample.
#pragma once

#include <array>
#include <cstdint>

#include "gsgpu/emu/graphics/triangle_setup.h"

namespace gsgpu::graphics {

inline constexpr uint32_t kMaxSamples = 4;

struct MultisampleState {
  uint32_t samples = 1;      // 1, 2 or 4 (the state decoder refuses others)
  uint8_t sample_mask = 0xF; // bit s keeps sample s (VkPipelineMultisampleStateCreateInfo::pSampleMask)
  bool alpha_to_coverage = false;
  bool alpha_to_one = false;
  bool is_default() const { return samples == 1 && (sample_mask & 1) && !alpha_to_coverage && !alpha_to_one; }
};

// A sample's location inside its pixel, in subpixels from the pixel's top-left corner.
struct SampleLocation {
  int32_t x = 0, y = 0;
};

// Vulkan's standard locations ("Multisampling", table "Standard sample locations"), in 1/256 pixel:
// 1 sample (0.5, 0.5); 2 samples (0.75, 0.75), (0.25, 0.25); 4 samples (0.375, 0.125),
// (0.875, 0.375), (0.125, 0.625), (0.625, 0.875). `samples` must be 1, 2 or 4.
inline const SampleLocation* sample_locations(uint32_t samples) {
  static constexpr SampleLocation kOne[1] = {{128, 128}};
  static constexpr SampleLocation kTwo[2] = {{192, 192}, {64, 64}};
  static constexpr SampleLocation kFour[4] = {{96, 32}, {224, 96}, {32, 160}, {160, 224}};
  return samples == 4 ? kFour : samples == 2 ? kTwo : kOne;
}

inline uint8_t all_samples(uint32_t samples) { return uint8_t((1u << samples) - 1); }

// Alpha to coverage, deterministic and without dither: sample s is kept when alpha > s / samples, so
// alpha 0 (or NaN) keeps none, alpha above (samples - 1) / samples keeps all, and each step of
// 1 / samples keeps one more sample, lowest index first.
inline uint8_t alpha_to_coverage_mask(float alpha, uint32_t samples) {
  uint8_t mask = 0;
  for (uint32_t s = 0; s < samples; ++s) {
    if (alpha > float(s) / float(samples)) mask |= uint8_t(1u << s);
  }
  return mask;
}

}  // namespace gsgpu::graphics
