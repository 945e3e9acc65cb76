// The fixed fragment stand-ins (SHADER_STATE FRAGMENT.MODE 0 and 1): a constant colour, or the
// first eight varyings interpolated (perspective-correct, no-perspective or flat) as colour and
// dual-source second colour. Fragment programs on the shader cores (fragment_program.h) compute the
// same with v_interp_* / v_export_f32, bit for bit. Both take the quad as a whole, so that helper
// lanes exist where derivatives need them.
#pragma once

#include <array>
#include <cstdint>

#include "gsgpu/emu/graphics/clipper.h"
#include "gsgpu/emu/graphics/interpolator.h"
#include "gsgpu/emu/graphics/rasterizer.h"
#include "gsgpu/emu/graphics/render_target.h"

namespace gsgpu::graphics {

struct QuadColors {
  std::array<Color, 4> color{};   // per lane (helper lanes too)
  std::array<Color, 4> color1{};  // the dual-source second output
};

class FragmentStage {
 public:
  virtual ~FragmentStage() = default;
  virtual void shade(const Quad& quad, const TriangleInterpolator& interp, const RasterTriangle& triangle,
                     QuadColors* out) = 0;
};

class ConstantColorStage final : public FragmentStage {
 public:
  ConstantColorStage(const Color& color, const Color& color1) : color_(color), color1_(color1) {}
  void shade(const Quad& quad, const TriangleInterpolator& interp, const RasterTriangle& triangle,
             QuadColors* out) override;

 private:
  Color color_, color1_;
};

// Colour = varyings 0..3, second colour = varyings 4..7, interpolated with `mode`.
class VaryingColorStage final : public FragmentStage {
 public:
  explicit VaryingColorStage(Interpolation mode) : mode_(mode) {}
  void shade(const Quad& quad, const TriangleInterpolator& interp, const RasterTriangle& triangle,
             QuadColors* out) override;

 private:
  Interpolation mode_;
};

}  // namespace gsgpu::graphics
