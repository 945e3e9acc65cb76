// VK_KHR_xcb_surface's side of presentation: the window's size and pixel layout, and putting a
// swapchain image's texels into it with core X requests on the application's own connection
// (xcb is thread-safe). No MIT-SHM or Present extension: a present is a PutImage per strip of rows
// that fits the server's request length, then one round trip, so the pixels are on the server
// (and the image is free again) when vkQueuePresentKHR returns.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gsgpu/vk/wsi.h"

namespace gsgpu::vk {
namespace {

// The pixmap format of `depth` on this server: bits per pixel, or 0 if it has none.
uint32_t bits_per_pixel(xcb_connection_t* connection, uint8_t depth) {
  const xcb_setup_t* setup = xcb_get_setup(connection);
  xcb_format_iterator_t it = xcb_setup_pixmap_formats_iterator(setup);
  for (; it.rem > 0; xcb_format_next(&it)) {
    if (it.data->depth == depth) return it.data->bits_per_pixel;
  }
  return 0;
}

}  // namespace

SurfaceState xcb_surface_state(const VkIcdSurfaceXcb* surface) {
  xcb_get_geometry_reply_t* geometry =
      xcb_get_geometry_reply(surface->connection, xcb_get_geometry(surface->connection, surface->window), nullptr);
  if (geometry == nullptr) return SurfaceState{.lost = true};
  SurfaceState state{
      .lost = false, .has_extent = true, .extent = {geometry->width, geometry->height}, .depth = geometry->depth};
  std::free(geometry);
  return state;
}

bool xcb_window_presentable(const VkIcdSurfaceXcb* surface) {
  xcb_get_geometry_reply_t* geometry =
      xcb_get_geometry_reply(surface->connection, xcb_get_geometry(surface->connection, surface->window), nullptr);
  if (geometry == nullptr) return false;
  const uint8_t depth = geometry->depth;
  std::free(geometry);
  const xcb_setup_t* setup = xcb_get_setup(surface->connection);
  return (depth == 24 || depth == 32) && bits_per_pixel(surface->connection, depth) == 32 &&
         setup->image_byte_order == XCB_IMAGE_ORDER_LSB_FIRST;
}

uint32_t xcb_create_swapchain_gc(const VkIcdSurfaceXcb* surface) {
  const uint32_t gc = xcb_generate_id(surface->connection);
  // No exposures: PutImage on a window needs no GraphicsExpose events sent to the application.
  const uint32_t values[] = {0};
  xcb_void_cookie_t cookie =
      xcb_create_gc_checked(surface->connection, gc, surface->window, XCB_GC_GRAPHICS_EXPOSURES, values);
  if (xcb_generic_error_t* error = xcb_request_check(surface->connection, cookie)) {
    std::fprintf(stderr, "gsgpu-vk: vkCreateSwapchainKHR: CreateGC on window 0x%x: X error %u\n", surface->window,
                 error->error_code);
    std::free(error);
    return 0;
  }
  return gc;
}

void xcb_free_swapchain_gc(const VkIcdSurfaceXcb* surface, uint32_t gc) {
  if (gc == 0) return;
  xcb_free_gc(surface->connection, gc);
  xcb_flush(surface->connection);
}

bool xcb_put_pixels(const VkIcdSurfaceXcb* surface, uint32_t gc, uint8_t depth, const uint8_t* pixels,
                    uint64_t row_pitch, uint32_t width, uint32_t height) {
  xcb_connection_t* connection = surface->connection;
  if (width == 0 || height == 0) return true;
  // The server's limit (BIG-REQUESTS raises it when present) in bytes, less PutImage's 24-byte header.
  const uint64_t max_request = uint64_t{xcb_get_maximum_request_length(connection)} * 4;
  const uint64_t row_bytes = uint64_t{width} * 4;
  const uint64_t rows_per_strip = std::min<uint64_t>(height, (max_request - 24) / row_bytes);
  if (rows_per_strip == 0) return false;
  std::vector<uint8_t> strip(rows_per_strip * row_bytes);
  std::vector<xcb_void_cookie_t> cookies;
  for (uint32_t y = 0; y < height; y += rows_per_strip) {
    const uint32_t rows = static_cast<uint32_t>(std::min<uint64_t>(rows_per_strip, height - y));
    // Swapchain rows are padded to 64 bytes; PutImage's rows are exactly width pixels (32-bit
    // pixels need no scanline padding).
    for (uint32_t r = 0; r < rows; ++r) {
      std::copy_n(pixels + (uint64_t{y} + r) * row_pitch, row_bytes, strip.data() + r * row_bytes);
    }
    cookies.push_back(xcb_put_image_checked(connection, XCB_IMAGE_FORMAT_Z_PIXMAP, surface->window, gc, width, rows,
                                            0, static_cast<int16_t>(y), 0, depth, static_cast<uint32_t>(rows * row_bytes),
                                            strip.data()));
  }
  bool ok = true;
  for (xcb_void_cookie_t cookie : cookies) {
    if (xcb_generic_error_t* error = xcb_request_check(connection, cookie)) {
      if (ok) {
        std::fprintf(stderr, "gsgpu-vk: vkQueuePresentKHR: PutImage on window 0x%x: X error %u\n", surface->window,
                     error->error_code);
      }
      std::free(error);
      ok = false;
    }
  }
  return ok;
}

}  // namespace gsgpu::vk
