#include "tests/gsgpu/graphics_golden/image_compare.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gsgpu/emu/graphics/png_writer.h"

namespace gsgpu::golden {
namespace {

bool is_float(const Frame& f) { return f.color_format == kR32G32B32A32Sfloat; }

// The four stored components of a pixel as numbers in 1/255 steps (bytes, or floats x 255).
std::array<double, 4> components(const Frame& f, uint32_t x, uint32_t y) {
  const uint64_t i = uint64_t{y} * f.width + x;
  std::array<double, 4> c{};
  if (is_float(f)) {
    float v[4];
    std::memcpy(v, f.color.data() + i * 16, 16);
    for (int k = 0; k < 4; ++k) c[k] = double(v[k]) * 255.0;
  } else {
    for (int k = 0; k < 4; ++k) c[k] = f.color[i * 4 + k];
  }
  return c;
}

// The largest component difference in 1/255 steps, unrounded (NaN against a number counts as 255).
double exact_difference(const Frame& a, const Frame& b, uint32_t x, uint32_t y) {
  const auto ca = components(a, x, y), cb = components(b, x, y);
  double d = 0;
  for (int k = 0; k < 4; ++k) {
    const double e = std::fabs(ca[k] - cb[k]);
    if (std::isnan(ca[k]) && std::isnan(cb[k])) continue;
    d = std::max(d, std::isnan(e) ? 255.0 : e);
  }
  return d;
}

uint32_t difference(const Frame& a, const Frame& b, uint32_t x, uint32_t y) {
  return uint32_t(std::min(std::ceil(exact_difference(a, b, x, y)), 1e9));
}

// Whether the reference's 3 x 3 neighbourhood of (x, y) (clipped to the frame) holds one value.
template <typename Same>
bool uniform_around(const Frame& f, uint32_t x, uint32_t y, Same same) {
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      const int64_t nx = int64_t(x) + dx, ny = int64_t(y) + dy;
      if (nx < 0 || ny < 0 || nx >= f.width || ny >= f.height) continue;
      if (!same(uint32_t(nx), uint32_t(ny))) return false;
    }
  }
  return true;
}

std::vector<uint8_t> to_rgba8(const Frame& f) {
  std::vector<uint8_t> out(uint64_t{f.width} * f.height * 4);
  const bool bgra = f.color_format == kB8G8R8A8Unorm || f.color_format == kB8G8R8A8Srgb;
  for (uint32_t y = 0; y < f.height; ++y) {
    for (uint32_t x = 0; x < f.width; ++x) {
      const auto c = components(f, x, y);
      uint8_t* p = &out[(uint64_t{y} * f.width + x) * 4];
      for (int k = 0; k < 4; ++k) p[k] = uint8_t(std::clamp(std::round(c[k]), 0.0, 255.0));
      if (bgra) std::swap(p[0], p[2]);
    }
  }
  return out;
}

}  // namespace

std::string Comparison::summary() const {
  char line[400];
  std::snprintf(line, sizeof line,
                "%llu pixels: %.4f%% over %u/255 (%llu), max difference %u/255 (%.3g), %llu differ; interior %llu, "
                "%llu mismatched (first at %d,%d); stencil interior mismatches %llu; max interior depth "
                "difference %.3g",
                (unsigned long long)pixels, 100.0 * fraction_over_threshold(), kEdgeThreshold,
                (unsigned long long)over_threshold, max_difference, max_exact_difference, (unsigned long long)differing,
                (unsigned long long)interior, (unsigned long long)interior_mismatches, first_interior_x,
                first_interior_y, (unsigned long long)stencil_interior_mismatches, max_interior_depth_difference);
  return line;
}

Comparison compare_frames(const Frame& g, const Frame& r) {
  Comparison c;
  const uint32_t bpp = color_bytes_per_pixel(r.color_format);
  for (uint32_t y = 0; y < r.height; ++y) {
    for (uint32_t x = 0; x < r.width; ++x) {
      ++c.pixels;
      const double exact = exact_difference(g, r, x, y);
      const uint32_t d = uint32_t(std::min(std::ceil(exact), 1e9));
      c.max_difference = std::max(c.max_difference, d);
      c.max_exact_difference = std::max(c.max_exact_difference, exact);
      c.over_threshold += d > kEdgeThreshold;
      c.differing += d > 0;
      const uint8_t* here = &r.color[(uint64_t{y} * r.width + x) * bpp];
      auto same_color = [&](uint32_t nx, uint32_t ny) {
        return std::memcmp(here, &r.color[(uint64_t{ny} * r.width + nx) * bpp], bpp) == 0;
      };
      if (uniform_around(r, x, y, same_color)) {
        ++c.interior;
        if (std::memcmp(here, &g.color[(uint64_t{y} * r.width + x) * bpp], bpp) != 0) {
          if (c.interior_mismatches++ == 0) c.first_interior_x = int32_t(x), c.first_interior_y = int32_t(y);
        }
      }
      const uint64_t i = uint64_t{y} * r.width + x;
      if (!r.stencil.empty()) {
        auto same_stencil = [&](uint32_t nx, uint32_t ny) {
          return r.stencil[uint64_t{ny} * r.width + nx] == r.stencil[i];
        };
        if (uniform_around(r, x, y, same_stencil) && g.stencil[i] != r.stencil[i]) ++c.stencil_interior_mismatches;
      }
      if (!r.depth.empty()) {
        // Depth varies smoothly over a triangle: "interior" here means the colour is interior.
        if (uniform_around(r, x, y, same_color)) {
          c.max_interior_depth_difference =
              std::max(c.max_interior_depth_difference, std::fabs(double(g.depth[i]) - double(r.depth[i])));
        }
      }
    }
  }
  return c;
}

std::string write_comparison_pngs(const std::string& dir, const std::string& name, const Frame& g, const Frame& r) {
  std::vector<uint8_t> diff(uint64_t{r.width} * r.height * 4);
  for (uint32_t y = 0; y < r.height; ++y) {
    for (uint32_t x = 0; x < r.width; ++x) {
      const uint32_t d = difference(g, r, x, y);
      uint8_t* p = &diff[(uint64_t{y} * r.width + x) * 4];
      p[0] = d > kEdgeThreshold ? 255 : 0;
      p[1] = uint8_t(std::min<uint32_t>(d * 8, 255));
      p[2] = 0;
      p[3] = 255;
    }
  }
  std::string written;
  const std::pair<const char*, std::vector<uint8_t>> images[] = {
      {"gsgpu", to_rgba8(g)}, {"lavapipe", to_rgba8(r)}, {"diff", diff}};
  for (const auto& [suffix, rgba] : images) {
    const std::string path = dir + "/" + name + "-" + suffix + ".png";
    const auto png = graphics::encode_png_rgba8(rgba.data(), r.width, r.height, uint64_t{r.width} * 4);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(png.data(), 1, png.size(), f) != png.size()) {
      if (f) std::fclose(f);
      return "could not write " + path;
    }
    std::fclose(f);
    written += (written.empty() ? "" : " ") + path;
  }
  return written;
}

}  // namespace gsgpu::golden
