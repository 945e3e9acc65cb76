// vkcube (vulkan-tools) on gsgpu against the same program on lavapipe: each runs N frames
// (`vkcube --c N`) in a 500 x 500 window on an Xvfb server of its own, with vkcube_keep_window.cc
// preloaded: vkcube stops itself where it would destroy its window, the window still showing the
// last frame presented; the test reads it back (GetImage on the window) and compares the two frames
// with the golden-image metric (tests/gsgpu/graphics_golden/image_compare.h). vkcube spins its cube
// by a fixed angle per frame, so frame N is the same picture on both drivers. Skipped only when
// vkcube or Xvfb is not installed (packages vulkan-tools, xvfb).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vulkan/vulkan.h>
#include <xcb/xcb.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/gsgpu/graphics_golden/image_compare.h"
#include "tests/gsgpu/vk/xvfb_server.h"

extern char** environ;

namespace gsgpu::vk::test {
namespace {

constexpr uint32_t kWindowSize = 500;  // vkcube's default window, at (100, 100) without a window manager

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Where the logs and PNGs go (created if missing).
std::string output_dir() {
  const char* dir = std::getenv("GSGPU_VKCUBE_OUT");
  const std::string path = dir != nullptr ? dir : "/tmp";
  std::filesystem::create_directories(path);
  return path;
}

uint32_t frame_count() {
  const char* count = std::getenv("GSGPU_VKCUBE_FRAMES");
  return count != nullptr ? static_cast<uint32_t>(std::strtoul(count, nullptr, 10)) : 300;
}

struct VkcubeRun {
  int exit_status = -1;  // vkcube's, or -1 when it was killed at the time limit
  double seconds = 0;
  std::string log;  // its stdout and stderr
  golden::Frame frame;
};

// Runs `vkcube --c frames` on `display` with the loader pointed at `icd`, up to `limit_s`, until it
// stops itself where it would destroy its window (vkcube_keep_window.cc), calling `poll` every 5 ms
// meanwhile. Then `read` runs while the window still shows the last frame, and vkcube is ended.
// Returns 0 when vkcube got there, its exit status (or 128 + signal) when it ended before, -1 at
// the time limit.
template <typename Poll, typename Read>
int run_vkcube(const std::string& vkcube, const std::string& display, const std::string& icd, uint32_t frames,
               const std::string& log_path, int limit_s, double* seconds, Poll poll, Read read) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("DISPLAY", display.c_str(), 1);
    setenv("VK_DRIVER_FILES", icd.c_str(), 1);
    setenv("VK_LOADER_LAYERS_DISABLE", "~all~", 1);
    setenv("LD_PRELOAD", VKCUBE_KEEP_WINDOW, 1);
    if (freopen(log_path.c_str(), "w", stdout) == nullptr) _exit(126);
    dup2(fileno(stdout), 2);
    const std::string count = std::to_string(frames);
    execl(vkcube.c_str(), vkcube.c_str(), "--c", count.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  for (;;) {
    if (waitpid(pid, &status, WNOHANG | WUNTRACED) == pid) break;
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(limit_s)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFSTOPPED(status)) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  read();
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return 0;
}

// The one window on the screen: vkcube's (0 if there is not exactly one).
xcb_window_t only_window(xcb_connection_t* connection) {
  xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(connection)).data;
  xcb_query_tree_reply_t* tree = xcb_query_tree_reply(connection, xcb_query_tree(connection, screen->root), nullptr);
  if (tree == nullptr) return 0;
  const xcb_window_t window = xcb_query_tree_children_length(tree) == 1 ? xcb_query_tree_children(tree)[0] : 0;
  std::free(tree);
  return window;
}

// vkcube's window's pixels as B, G, R, A bytes (alpha 255: X keeps no alpha at depth 24).
bool read_window(xcb_connection_t* connection, golden::Frame* frame) {
  const xcb_window_t window = only_window(connection);
  xcb_get_geometry_reply_t* geometry =
      xcb_get_geometry_reply(connection, xcb_get_geometry(connection, window), nullptr);
  if (geometry == nullptr) return false;
  const uint32_t width = geometry->width, height = geometry->height;
  std::free(geometry);
  xcb_get_image_reply_t* reply = xcb_get_image_reply(
      connection, xcb_get_image(connection, XCB_IMAGE_FORMAT_Z_PIXMAP, window, 0, 0, width, height, ~0u), nullptr);
  const bool ok = reply != nullptr && xcb_get_image_data_length(reply) == int(width * height * 4);
  if (ok) {
    const uint8_t* data = xcb_get_image_data(reply);
    frame->width = width;
    frame->height = height;
    frame->color_format = golden::kB8G8R8A8Unorm;
    frame->color.assign(data, data + width * height * 4);
    for (size_t i = 3; i < frame->color.size(); i += 4) frame->color[i] = 255;
  }
  std::free(reply);
  return ok;
}

// Whether vkcube has presented into `window`: its centre is no longer the window's black background.
bool presented(xcb_connection_t* connection, xcb_window_t window) {
  xcb_get_image_reply_t* reply = xcb_get_image_reply(
      connection, xcb_get_image(connection, XCB_IMAGE_FORMAT_Z_PIXMAP, window, kWindowSize / 2, kWindowSize / 2, 1, 1, ~0u),
      nullptr);
  const bool shown = reply != nullptr && xcb_get_image_data_length(reply) == 4 &&
                     (xcb_get_image_data(reply)[0] | xcb_get_image_data(reply)[1] | xcb_get_image_data(reply)[2]) != 0;
  std::free(reply);
  return shown;
}

// Resizes vkcube's window to `size` once it shows a frame (a window manager's or a user's resize
// while the swapchain is in use: vkcube recreates it when its present or acquire says so); true
// once done. Polled every 5 ms, it comes within a few frames of the first (lavapipe draws 300 in
// 0.2-0.3 s), far from the last.
bool resize_window(xcb_connection_t* connection, VkExtent2D size) {
  const xcb_window_t window = only_window(connection);
  if (window == 0 || !presented(connection, window)) return false;
  const uint32_t values[] = {size.width, size.height};
  xcb_configure_window(connection, window, XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT, values);
  xcb_flush(connection);
  return true;
}

// vkcube on `icd` for `frames` frames in an Xvfb of its own; its window resized to `resize` as soon
// as it appears unless that is 0 x 0.
VkcubeRun run_on(const std::string& name, const std::string& icd, uint32_t frames, VkExtent2D resize, int limit_s) {
  VkcubeRun run;
  XvfbServer server;
  std::string error;
  if (!server.start(XvfbServer::find_binary(), "800x640x24", {}, &error)) {
    run.log = "Xvfb: " + error;
    return run;
  }
  xcb_connection_t* connection = xcb_connect(server.display().c_str(), nullptr);
  if (xcb_connection_has_error(connection)) {
    xcb_disconnect(connection);
    run.log = "cannot connect to Xvfb " + server.display();
    return run;
  }
  const std::string log_path = output_dir() + "/" + name + ".log";
  bool resized = resize.width == 0, read = false;
  run.exit_status = run_vkcube(
      find_on_path("vkcube"), server.display(), icd, frames, log_path, limit_s, &run.seconds,
      [&] { resized = resized || resize_window(connection, resize); },
      [&] { read = read_window(connection, &run.frame); });
  xcb_disconnect(connection);
  std::ifstream log(log_path);
  run.log.assign(std::istreambuf_iterator<char>(log), std::istreambuf_iterator<char>());
  if (!resized) run.log += "\n(window not resized)";
  if (!read) run.log += "\n(window not read back)";
  return run;
}

// Pixels of `frame` in vkcube's clear colour (0.2 grey: bytes 51 in B8G8R8A8_UNORM).
uint64_t background_pixels(const golden::Frame& frame) {
  uint64_t n = 0;
  for (size_t i = 0; i + 3 < frame.color.size(); i += 4) {
    n += frame.color[i] == 51 && frame.color[i + 1] == 51 && frame.color[i + 2] == 51;
  }
  return n;
}

// Runs vkcube on lavapipe and on gsgpu and compares their frame N (the window's last).
void expect_frame_n_matches_lavapipe(const std::string& name, VkExtent2D resize) {
  if (find_on_path("vkcube").empty()) GTEST_SKIP() << "vkcube is not installed (package vulkan-tools)";
  if (XvfbServer::find_binary().empty()) GTEST_SKIP() << "Xvfb is not installed (package xvfb)";
  const uint32_t frames = frame_count();
  const VkcubeRun lavapipe = run_on(name + "-lavapipe", GSVIRT_LAVAPIPE_ICD, frames, resize, 120);
  ASSERT_EQ(lavapipe.exit_status, 0) << lavapipe.log;
  const VkcubeRun gsgpu = run_on(name + "-gsgpu", GSGPU_VK_ICD, frames, resize, 400);
  ASSERT_EQ(gsgpu.exit_status, 0) << gsgpu.log;
  // The driver logged no refused or faulted command.
  EXPECT_EQ(gsgpu.log.find("gsgpu-vk:"), std::string::npos) << gsgpu.log.substr(0, 2000);
  ASSERT_FALSE(lavapipe.frame.color.empty()) << lavapipe.log;
  ASSERT_FALSE(gsgpu.frame.color.empty()) << gsgpu.log;
  const VkExtent2D size = resize.width != 0 ? resize : VkExtent2D{kWindowSize, kWindowSize};
  ASSERT_EQ(gsgpu.frame.width, size.width);
  ASSERT_EQ(gsgpu.frame.height, size.height);
  // vkcube's frame is on the screen (its clear colour around the cube) and a cube was drawn (two
  // blank frames would match): the cube covers 10 % to 70 % of the window.
  const uint64_t all = uint64_t{size.width} * size.height;
  EXPECT_GT(background_pixels(lavapipe.frame), all * 3 / 10);
  EXPECT_LT(background_pixels(lavapipe.frame), all * 9 / 10);
  const golden::Comparison c = golden::compare_frames(gsgpu.frame, lavapipe.frame);
  const std::string written = golden::write_comparison_pngs(output_dir(), name, gsgpu.frame, lavapipe.frame);
  std::printf("%s: vkcube --c %u: gsgpu %.1f s, lavapipe %.1f s; %s; %s\n", name.c_str(), frames, gsgpu.seconds,
              lavapipe.seconds, c.summary().c_str(), written.c_str());
  // Edges differ between rasterizers (at 300 frames: 4 pixels over 16/255, 41 differing); a pixel
  // away from every edge is one texel of the same texture lit by the same face normal.
  EXPECT_LE(c.fraction_over_threshold(), 0.001) << c.summary();
  EXPECT_LE(c.interior_mismatches, c.interior / 1000) << c.summary();
}

TEST(VkCube, FrameNOnGsgpuMatchesLavapipe) { expect_frame_n_matches_lavapipe("vkcube", {0, 0}); }

// The window resized while vkcube runs: it recreates its swapchain at the new size (gsgpu answers
// VK_SUBOPTIMAL_KHR), and its last frame fills the new window.
TEST(VkCube, AfterAResizeFrameNOnGsgpuMatchesLavapipe) { expect_frame_n_matches_lavapipe("vkcube-resized", {320, 240}); }

#ifdef GSGPU_VK_NATIVE_ICD
// Issue 11 point 5, both routes: vkcube on the driver over the gsgpu native context
// (libgsgpu_vk_native.so; meson sets GSVIRT_TRANSPORT=inproc, so the host's native context runs in
// vkcube's process) presents the same frame N as on the local device, bit for bit: the host runs
// the packets the guest-side driver built on the same emulator.
TEST(VkCube, NativeRouteFrameNEqualsTheLocalRoute) {
  if (find_on_path("vkcube").empty()) GTEST_SKIP() << "vkcube is not installed (package vulkan-tools)";
  if (XvfbServer::find_binary().empty()) GTEST_SKIP() << "Xvfb is not installed (package xvfb)";
  const uint32_t frames = frame_count();
  const VkcubeRun local = run_on("vkcube-local", GSGPU_VK_ICD, frames, {0, 0}, 400);
  ASSERT_EQ(local.exit_status, 0) << local.log;
  const VkcubeRun native = run_on("vkcube-native", GSGPU_VK_NATIVE_ICD, frames, {0, 0}, 400);
  ASSERT_EQ(native.exit_status, 0) << native.log;
  EXPECT_EQ(native.log.find("gsgpu-vk:"), std::string::npos) << native.log.substr(0, 2000);
  ASSERT_FALSE(local.frame.color.empty()) << local.log;
  ASSERT_EQ(native.frame.width, local.frame.width);
  ASSERT_EQ(native.frame.height, local.frame.height);
  const uint64_t all = uint64_t{local.frame.width} * local.frame.height;
  EXPECT_LT(background_pixels(local.frame), all * 9 / 10);  // a cube was drawn
  const golden::Comparison c = golden::compare_frames(native.frame, local.frame);
  std::printf("vkcube --c %u: local %.1f s, native (in-process transport) %.1f s; %s\n", frames, local.seconds,
              native.seconds, c.summary().c_str());
  EXPECT_TRUE(native.frame.color == local.frame.color) << c.summary();
}
#endif

}  // namespace
}  // namespace gsgpu::vk::test
