// OpenGL through Mesa's zink on gsgpu (issue 11 acceptance 3), under an Xvfb server of the test's
// own: `glxinfo -B` reports zink on gsgpu with OpenGL 2.1, and gl_scene (a GLSL 1.20 scene with a
// vertex buffer, the depth test, uniforms and blending) draws through zink on gsgpu what it draws
// through zink on lavapipe, within the golden-image metric (docs/graphics.md): no interior pixel
// differs and at most 1 % of the pixels, all at edges, differ by over 16/255; through the guest
// native-context driver it draws the local route's frame byte for byte. Skipped, with the
// package named, where Xvfb, glxinfo, Mesa's zink or lavapipe is missing (CI installs them).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/gsgpu/graphics_golden/image_compare.h"
#include "tests/gsgpu/vk/xvfb_server.h"

namespace gsgpu::gl::test {
namespace {

using vk::test::XvfbServer;

constexpr uint32_t kSceneSize = 128;  // gl_scene.cc's window
constexpr const char* kZinkDri = GSVIRT_ZINK_DRI;  // Mesa's zink, in libgl1-mesa-dri

// The local route (libgsgpu_vk.so), the guest native-context route (libgsgpu_vk_native.so over the
// in-process transport, docs/vulkan-driver.md "Routes") and the reference.
enum class Driver { kGsgpu, kGsgpuNative, kLavapipe };

// Runs `argv` with DISPLAY set and the environment that puts zink on `driver`; its stdout and stderr
// go to *output. Returns the exit status (128 + signal when killed).
int run_through_zink(const std::string& display, Driver driver, const std::vector<std::string>& argv,
                     std::string* output) {
  const std::string log = ::testing::TempDir() + "zink_gl_" + std::to_string(getpid()) + ".log";
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("DISPLAY", display.c_str(), 1);
    setenv("MESA_LOADER_DRIVER_OVERRIDE", "zink", 1);
    setenv("VK_LOADER_LAYERS_DISABLE", "~all~", 1);
    if (driver == Driver::kGsgpu) {
      setenv("VK_DRIVER_FILES", GSGPU_VK_ICD, 1);
      unsetenv("LIBGL_ALWAYS_SOFTWARE");
    } else if (driver == Driver::kGsgpuNative) {
#ifdef GSGPU_VK_NATIVE_ICD
      setenv("VK_DRIVER_FILES", GSGPU_VK_NATIVE_ICD, 1);
      setenv("GSVIRT_TRANSPORT", "inproc", 1);
#endif
      unsetenv("LIBGL_ALWAYS_SOFTWARE");
    } else {
      setenv("VK_DRIVER_FILES", GSVIRT_LAVAPIPE_ICD, 1);
      setenv("LIBGL_ALWAYS_SOFTWARE", "1", 1);  // lavapipe is a CPU device: zink takes it only so
    }
    if (freopen(log.c_str(), "w", stdout) == nullptr) _exit(126);
    dup2(fileno(stdout), 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(log);
  output->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::remove(log.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class ZinkGl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (XvfbServer::find_binary().empty()) GTEST_SKIP() << "Xvfb is not installed (package xvfb)";
    if (access(kZinkDri, R_OK) != 0) GTEST_SKIP() << kZinkDri << " is not installed (package libgl1-mesa-dri)";
    std::string error;
    ASSERT_TRUE(server_.start(XvfbServer::find_binary(), "320x240x24", {"+extension", "GLX"}, &error)) << error;
  }

  // gl_scene's frame through zink on `driver`, as a golden::Frame (rows bottom first, as read).
  golden::Frame scene(Driver driver, std::string* output) {
    const std::string path = ::testing::TempDir() + "zink_gl_scene_" + std::to_string(getpid()) + ".rgba";
    const int status = run_through_zink(server_.display(), driver, {GL_SCENE, path}, output);
    EXPECT_EQ(status, 0) << *output;
    golden::Frame frame;
    frame.width = frame.height = kSceneSize;
    frame.color_format = golden::kR8G8B8A8Unorm;
    std::ifstream in(path, std::ios::binary);
    frame.color.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::remove(path.c_str());
    return frame;
  }

  XvfbServer server_;
};

// Mesa 22.3's zink derives the GL version from the Vulkan driver's features: OpenGL 3.2 since
// multisampling (GL_MAX_SAMPLES 4), float / packed-float / D32S8 formats and VK_EXT_transform_feedback
// (docs/vulkan-driver.md "zink", item 8). A feature the driver stops offering lowers it again.
TEST_F(ZinkGl, GlxinfoReportsOpenGl32ThroughZinkOnGsgpu) {
  if (access("/usr/bin/glxinfo", X_OK) != 0) GTEST_SKIP() << "glxinfo is not installed (package mesa-utils)";
  std::string output;
  EXPECT_EQ(run_through_zink(server_.display(), Driver::kGsgpu, {"/usr/bin/glxinfo", "-B"}, &output), 0) << output;
  EXPECT_NE(output.find("OpenGL renderer string: zink (gsgpu)"), std::string::npos) << output;
  EXPECT_NE(output.find("OpenGL version string: 3.2 (Compatibility Profile) Mesa"), std::string::npos) << output;
  EXPECT_NE(output.find("OpenGL core profile version string: 3.2 (Core Profile) Mesa"), std::string::npos) << output;
  EXPECT_NE(output.find("OpenGL shading language version string: 1.50"), std::string::npos) << output;
  EXPECT_NE(output.find("OpenGL ES profile version string: OpenGL ES 3.0"), std::string::npos) << output;
}

TEST_F(ZinkGl, Glsl120SceneMatchesZinkOnLavapipe) {
  if (access(GSVIRT_LAVAPIPE_ICD, R_OK) != 0) GTEST_SKIP() << "lavapipe is not installed (package mesa-vulkan-drivers)";
  std::string gs_log, ref_log;
  const golden::Frame gs = scene(Driver::kGsgpu, &gs_log);
  const golden::Frame ref = scene(Driver::kLavapipe, &ref_log);
  EXPECT_NE(gs_log.find("GL_RENDERER zink (gsgpu)"), std::string::npos) << gs_log;
  EXPECT_NE(ref_log.find("GL_RENDERER zink (llvmpipe"), std::string::npos) << ref_log;
  ASSERT_EQ(gs.color.size(), size_t{kSceneSize} * kSceneSize * 4);
  ASSERT_EQ(ref.color.size(), gs.color.size());
  const golden::Comparison c = golden::compare_frames(gs, ref);
  std::printf("[zink-gl] %s\n", c.summary().c_str());
  EXPECT_EQ(c.interior_mismatches, 0u) << c.summary();
  EXPECT_LE(c.fraction_over_threshold(), 0.01) << c.summary();
  // A scene, not a blank frame: the triangles and the quad cover thousands of pixels.
  uint32_t drawn = 0;
  const uint8_t clear[4] = {0x33, 0x66, 0x99, 0xff};  // glClearColor(0.2, 0.4, 0.6, 1)
  for (size_t i = 0; i < gs.color.size(); i += 4) drawn += std::memcmp(&gs.color[i], clear, 4) != 0;
  EXPECT_GT(drawn, 4000u);
}

// Issue 11 point 5 through OpenGL: the same scene through zink on the native route equals the
// local route's frame byte for byte.
TEST_F(ZinkGl, NativeRouteSceneEqualsTheLocalRoute) {
#ifndef GSGPU_VK_NATIVE_ICD
  GTEST_SKIP() << "the native-context Vulkan driver is not built (guest/gsgpu)";
#else
  std::string local_log, native_log;
  const golden::Frame local = scene(Driver::kGsgpu, &local_log);
  const golden::Frame native = scene(Driver::kGsgpuNative, &native_log);
  EXPECT_NE(native_log.find("GL_RENDERER zink (gsgpu)"), std::string::npos) << native_log;
  ASSERT_EQ(local.color.size(), size_t{kSceneSize} * kSceneSize * 4);
  EXPECT_TRUE(local.color == native.color) << golden::compare_frames(native, local).summary();
#endif
}

}  // namespace
}  // namespace gsgpu::gl::test
