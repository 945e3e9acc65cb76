// Renders a golden-image scene on the emulated gsgpu device: each draw's state blocks are written
// into GPU memory and run by the command processor through a DRAW packet, as a driver would.
#pragma once

#include <optional>
#include <string>

#include "gsgpu/emu/graphics/graphics_pipeline.h"
#include "tests/gsgpu/graphics_golden/scene.h"

namespace gsgpu::golden {

// What shades the draws on gsgpu: the fixed stand-ins (pass-through vertex stage, constant / varying
// colour), or vertex and fragment programs on the shader cores that compute the same
// (docs/graphics.md "Fragment programs", "Vertex programs").
enum class GsgpuShaders : uint8_t { kStandIns, kPrograms };

// The rendered frame, or nullopt with *error (a refused block or a faulted draw, with the CP's message).
// `mode`: the device's DeviceConfig::draw_mode (reference, or fast: the same frame bit for bit).
std::optional<Frame> render_on_gsgpu(const Scene& scene, std::string* error,
                                     GsgpuShaders shaders = GsgpuShaders::kStandIns,
                                     graphics::DrawMode mode = graphics::DrawMode::kReference);

}  // namespace gsgpu::golden
