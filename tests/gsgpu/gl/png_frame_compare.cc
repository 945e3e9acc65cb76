// png_frame_compare: two PNG frames (glretrace snapshots of one trace call on two drivers) compared
// with the golden-image metric (tests/gsgpu/graphics_golden/image_compare.h, docs/graphics.md
// "Golden images"), so that whole OpenGL scenes are judged by the same rule as the Vulkan tests.
//
//   png_frame_compare GSGPU.png REFERENCE.png [DIFF_DIR NAME]
//
// Prints one line of key=value pairs (pixels, over, fraction, max, differing, interior,
// interior_mismatches) that scripts/glmark2-scenes-compare parses; with DIFF_DIR, also writes
// NAME-gsgpu.png, NAME-lavapipe.png (the reference) and NAME-diff.png there. Exit status 0 when both
// frames were read and have one size, 2 otherwise (with the reason on stderr).
#include <png.h>

#include <cstdio>
#include <string>

#include "tests/gsgpu/graphics_golden/image_compare.h"

namespace {

using gsgpu::golden::Frame;

// Reads any PNG libpng understands as 8-bit RGBA, rows top first (as glretrace writes them; both
// frames of a comparison come from glretrace, so their row order agrees).
bool read_png_rgba(const char* path, Frame* frame, std::string* error) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path)) {
    *error = std::string(path) + ": " + image.message;
    return false;
  }
  image.format = PNG_FORMAT_RGBA;
  frame->width = image.width;
  frame->height = image.height;
  frame->color_format = gsgpu::golden::kR8G8B8A8Unorm;
  frame->color.assign(PNG_IMAGE_SIZE(image), 0);
  if (!png_image_finish_read(&image, nullptr, frame->color.data(), 0, nullptr)) {
    *error = std::string(path) + ": " + image.message;
    png_image_free(&image);
    return false;
  }
  return true;
}

void print_comparison(const gsgpu::golden::Comparison& c) {
  std::printf("pixels=%llu over=%llu fraction=%.6f max=%u differing=%llu interior=%llu interior_mismatches=%llu\n",
              static_cast<unsigned long long>(c.pixels), static_cast<unsigned long long>(c.over_threshold),
              c.fraction_over_threshold(), c.max_difference, static_cast<unsigned long long>(c.differing),
              static_cast<unsigned long long>(c.interior), static_cast<unsigned long long>(c.interior_mismatches));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::fprintf(stderr, "usage: %s GSGPU.png REFERENCE.png [DIFF_DIR NAME]\n", argv[0]);
    return 2;
  }
  Frame gsgpu, reference;
  std::string error;
  if (!read_png_rgba(argv[1], &gsgpu, &error) || !read_png_rgba(argv[2], &reference, &error)) {
    std::fprintf(stderr, "png_frame_compare: %s\n", error.c_str());
    return 2;
  }
  if (gsgpu.width != reference.width || gsgpu.height != reference.height) {
    std::fprintf(stderr, "png_frame_compare: %ux%u against %ux%u\n", gsgpu.width, gsgpu.height, reference.width,
                 reference.height);
    return 2;
  }
  print_comparison(gsgpu::golden::compare_frames(gsgpu, reference));
  if (argc == 5) {
    const std::string written = gsgpu::golden::write_comparison_pngs(argv[3], argv[4], gsgpu, reference);
    std::fprintf(stderr, "%s\n", written.c_str());
  }
  return 0;
}
