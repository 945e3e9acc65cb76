// PNG files of render targets, for debugging (seed 001: framebuffers written as PNG).
//
// The encoder needs no library: 8-bit RGBA, no filtering, zlib "stored" (uncompressed) deflate blocks,
// CRC-32 per chunk and Adler-32 over the scanlines, as the PNG and zlib specifications define them.
// Files are larger than compressed ones but the writer is small, exact and dependency-free.
// UNORM and SRGB targets are written with their stored bytes (BGRA reordered to RGBA; sRGB bytes
// are what PNG viewers expect); float targets are clamped to [0, 1] and rounded to 8 bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gsgpu/emu/graphics/render_target.h"

namespace gsgpu::graphics {

// `rgba` holds height rows of width * 4 bytes, row_pitch bytes apart.
std::vector<uint8_t> encode_png_rgba8(const uint8_t* rgba, uint32_t width, uint32_t height, uint64_t row_pitch);
std::vector<uint8_t> encode_png(const ColorTarget& target);
// Writes encode_png(target) to `path`; false with *error on failure.
bool write_png(const std::string& path, const ColorTarget& target, std::string* error);

}  // namespace gsgpu::graphics
