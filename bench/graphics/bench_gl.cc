// bench_draw's three workloads on OpenGL ES 2.0, for the GL software rasterizers that issue 11
// acceptance 5 names as references: softpipe and llvmpipe (GALLIUM_DRIVER picks one) through EGL's
// surfaceless platform, no window. The same target (256 x 256 RGBA8, a renderbuffer), the same
// geometry and the same shaders as bench_draw.cc, glFinish per frame as bench_draw waits for its
// fence. The benchmarks are named after GL_RENDERER's first word ("softpipe", "llvmpipe", "zink").
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <benchmark/benchmark.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/graphics/workloads.h"

namespace {

using namespace bench_graphics;

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "bench_gl: %s\n", what);
  std::exit(1);
}

// An EGL display on the surfaceless platform and a current GLES 2 context without a surface.
void make_context() {
  auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!get_platform_display) fail("no eglGetPlatformDisplayEXT");
  EGLDisplay display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr)) fail("no surfaceless EGL display");
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
                                   EGL_NONE};
  EGLConfig config;
  EGLint count = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &count) || count == 0) fail("no EGL config");
  if (!eglBindAPI(EGL_OPENGL_ES_API)) fail("eglBindAPI");
  const EGLint context_attribs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  if (context == EGL_NO_CONTEXT) fail("eglCreateContext");
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) fail("eglMakeCurrent");
}

void make_target() {
  GLuint fbo = 0, colour = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glGenRenderbuffers(1, &colour);
  glBindRenderbuffer(GL_RENDERBUFFER, colour);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8_OES, GLsizei(kSize), GLsizei(kSize));
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) fail("incomplete framebuffer");
  glViewport(0, 0, GLsizei(kSize), GLsizei(kSize));
}

GLuint shader(GLenum type, const char* text) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &text, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) fail("a shader does not compile");
  return s;
}

constexpr char kVertex[] = R"(attribute vec2 position;
void main() { gl_Position = vec4(position, 0.5, 1.0); })";
constexpr char kFlat[] = R"(precision highp float;
uniform vec4 colour;
void main() { gl_FragColor = colour; })";
// bench/graphics/shaders/long.frag in GLSL ES 1.00.
constexpr char kLong[] = R"(precision highp float;
uniform vec4 colour;
void main() {
  vec2 q = gl_FragCoord.xy * (1.0 / 256.0);
  float a = q.x, b = q.y;
  for (int i = 0; i < 64; ++i) {
    a = fract(a * 1.37 + b);
    b = b * 0.93 + a * 0.11;
  }
  gl_FragColor = vec4(a, b, a * b, 1.0) * colour;
})";

// A frame: clear, draw the vertices (a triangle list) with the program, finish.
struct Workload {
  GLuint program = 0, buffer = 0;
  GLsizei vertices = 0;
};

Workload workload(const std::vector<float>& xy, const char* fragment) {
  Workload w;
  w.program = glCreateProgram();
  glAttachShader(w.program, shader(GL_VERTEX_SHADER, kVertex));
  glAttachShader(w.program, shader(GL_FRAGMENT_SHADER, fragment));
  glBindAttribLocation(w.program, 0, "position");
  glLinkProgram(w.program);
  GLint ok = 0;
  glGetProgramiv(w.program, GL_LINK_STATUS, &ok);
  if (!ok) fail("a program does not link");
  glGenBuffers(1, &w.buffer);
  glBindBuffer(GL_ARRAY_BUFFER, w.buffer);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(xy.size() * sizeof(float)), xy.data(), GL_STATIC_DRAW);
  w.vertices = GLsizei(xy.size() / 2);
  return w;
}

void run(const Workload& w) {
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT);
  glUseProgram(w.program);
  glUniform4f(glGetUniformLocation(w.program, "colour"), 0.25f, 0.5f, 0.75f, 1.0f);
  glBindBuffer(GL_ARRAY_BUFFER, w.buffer);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
  glDrawArrays(GL_TRIANGLES, 0, w.vertices);
  glFinish();
}

void register_benchmarks(const std::string& name) {
  static const Workload fill = workload(full_screen_layers(kFillLayers), kFlat);
  static const Workload shade = workload(full_screen_layers(1), kLong);
  static const Workload tiny = workload(tiny_triangles(kGrid), kFlat);
  register_workloads(name, {[] { run(fill); }, [] { run(shade); }, [] { run(tiny); }});
}

// "softpipe", "llvmpipe (LLVM 15.0.7, 256 bits)" -> "softpipe", "llvmpipe"; zink's renderer
// string starts with "zink".
std::string renderer_name() {
  const char* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  std::string name;
  for (const char* p = r ? r : "unknown"; *p && (std::isalnum(static_cast<unsigned char>(*p)) || *p == '_'); ++p)
    name += *p;
  return name.empty() ? "unknown" : name;
}

}  // namespace

int main(int argc, char** argv) {
  make_context();
  make_target();
  std::fprintf(stderr, "bench_gl: GL_RENDERER %s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
  register_benchmarks(renderer_name());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
