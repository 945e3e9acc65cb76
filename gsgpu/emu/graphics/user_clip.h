// User clip and cull distances (Vulkan "Primitive Clipping": gl_ClipDistance / gl_CullDistance, the
// shaderClipDistance / shaderCullDistance features). The vertex stage exports them per vertex
// (ShadedVertex::distances: DrawParams::clip_distances values, then cull_distances); before the
// fixed planes of clipper.h, a primitive whose vertices all have one cull distance below 0 is
// dropped, and one that crosses a clip distance's zero is cut there: the part where every clip
// distance is >= 0 stays, new vertices interpolated linearly in clip space (position, varyings and
// the distances themselves), as the fixed planes do. A cut triangle becomes the fan of its polygon;
// a point is kept only when all its clip distances are >= 0. NaN distances count as outside.
#pragma once

#include <cstdint>
#include <vector>

#include "gsgpu/emu/graphics/primitive_assembly.h"

namespace gsgpu::graphics {

// Appends what remains of `p` to *out (nothing, `p` itself, or its pieces); the pieces keep `p`'s
// vertex count. The caller keeps `p`'s provoking vertex for the pieces' flat varyings.
// linear_varyings: the noperspective components, cut in screen space (clipper.h lerp_varyings).
void cut_by_distances(const AssembledPrimitive& p, uint32_t clip_distances, uint32_t cull_distances,
                      uint64_t linear_varyings, std::vector<AssembledPrimitive>* out);

}  // namespace gsgpu::graphics
