// The fixed fragment stand-ins (see fragment_stage.h).
#include "gsgpu/emu/graphics/fragment_stage.h"

namespace gsgpu::graphics {

void ConstantColorStage::shade(const Quad&, const TriangleInterpolator&, const RasterTriangle&, QuadColors* out) {
  for (int lane = 0; lane < 4; ++lane) {
    out->color[lane] = color_;
    out->color1[lane] = color1_;
  }
}

void VaryingColorStage::shade(const Quad& quad, const TriangleInterpolator& interp, const RasterTriangle& t,
                              QuadColors* out) {
  std::array<const float*, 3> sources{t.varyings[0].data(), t.varyings[1].data(), t.varyings[2].data()};
  if (mode_ == Interpolation::kFlat) sources = {t.flat.data(), t.flat.data(), t.flat.data()};
  for (int lane = 0; lane < 4; ++lane) {
    float values[8];
    interp.interpolate(quad.x + (lane & 1), quad.y + (lane >> 1), mode_, sources, 8, values);
    for (int c = 0; c < 4; ++c) {
      out->color[lane][c] = values[c];
      out->color1[lane][c] = values[4 + c];
    }
  }
}

}  // namespace gsgpu::graphics
