// Stippled lines cut into their drawn pieces (rules in line_stipple.h).
#include "gsgpu/emu/graphics/line_stipple.h"

#include <algorithm>
#include <cmath>

namespace gsgpu::graphics {
namespace {

// The decoder keeps the factor in [1, 256]; a 0 from any other caller counts as 1, never a division by 0.
bool pattern_bit(uint32_t s, const LineStipple& stipple) {
  return (stipple.pattern >> ((s / std::max(stipple.factor, 1u)) & 15)) & 1;
}

}  // namespace

void LineStippler::split(float x0, float y0, float x1, float y1, const LineStipple& stipple, bool rectangular,
                         std::vector<StippleRun>* runs) {
  runs->clear();
  const float dx = x1 - x0, dy = y1 - y0;
  if (!std::isfinite(dx) || !std::isfinite(dy)) return;
  const float length = rectangular ? std::sqrt(dx * dx + dy * dy) : std::max(std::fabs(dx), std::fabs(dy));
  if (!std::isfinite(length)) return;  // a rectangular length can still overflow
  // The clipper keeps lines inside its guard band, so a line has fewer than 2^17 pixels; the
  // bound keeps the loop finite for any caller.
  const uint32_t pixels = uint32_t(std::fmin(std::ceil(length), 1 << 20));
  bool drawing = false;
  uint32_t start = 0;
  for (uint32_t i = 0; i < pixels; ++i) {
    const bool on = pattern_bit(counter_ + i, stipple);
    if (on == drawing) continue;
    if (on) {
      start = i;
    } else {
      runs->push_back({float(start) / length, float(i) / length});
    }
    drawing = on;
  }
  if (drawing) runs->push_back({float(start) / length, 1.0f});
  counter_ += pixels;
}

}  // namespace gsgpu::graphics
