// A small OpenGL 2.1 program for the zink tests (zink_gl_test.cc): on the X display of $DISPLAY it
// makes a GLX context, draws one scene — a clear, a GLSL 1.20 program drawing two overlapping
// triangles from a vertex buffer with the depth test on, a uniform tint and a blended quad — reads
// the back buffer with glReadPixels and writes its RGBA bytes (bottom row first) to the file named
// by its argument. GL_RENDERER and GL_VERSION go to stdout, so the test sees which driver drew.
// Exits non-zero, with a line on stderr, when any step fails.
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#include <X11/Xlib.h>

#include <cstdio>
#include <vector>

namespace {

constexpr int kSize = 128;

const char* kVertexShader = R"(#version 120
attribute vec3 position;
attribute vec4 color;
uniform vec2 offset;
varying vec4 v_color;
void main() {
  gl_Position = vec4(position.xy + offset, position.z, 1.0);
  v_color = color;
})";

const char* kFragmentShader = R"(#version 120
varying vec4 v_color;
uniform vec4 tint;
void main() { gl_FragColor = v_color * tint; })";

int fail(const char* what) {
  std::fprintf(stderr, "gl_scene: %s\n", what);
  return 1;
}

GLuint compile(GLenum stage, const char* source) {
  const GLuint shader = glCreateShader(stage);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  return ok ? shader : 0;
}

// The program, or 0 when a stage does not compile or the program does not link.
GLuint make_program() {
  const GLuint vs = compile(GL_VERTEX_SHADER, kVertexShader), fs = compile(GL_FRAGMENT_SHADER, kFragmentShader);
  if (vs == 0 || fs == 0) return 0;
  const GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glBindAttribLocation(program, 0, "position");
  glBindAttribLocation(program, 1, "color");
  glLinkProgram(program);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  return ok ? program : 0;
}

struct Vertex {
  float x, y, z;
  unsigned char rgba[4];
};

// Two triangles crossing in depth, then a half-transparent quad blended over them.
void draw_scene(GLuint program) {
  const Vertex vertices[] = {
      {-0.9f, -0.8f, 0.2f, {255, 0, 0, 255}},   {0.8f, -0.6f, 0.2f, {255, 255, 0, 255}},
      {-0.2f, 0.9f, 0.2f, {255, 0, 255, 255}},  {-0.7f, 0.7f, -0.5f, {0, 255, 0, 255}},
      {0.9f, 0.6f, 0.6f, {0, 255, 255, 255}},   {0.1f, -0.9f, 0.6f, {0, 0, 255, 255}},
      {-0.5f, -0.5f, -0.9f, {255, 255, 255, 128}}, {0.5f, -0.5f, -0.9f, {255, 255, 255, 128}},
      {-0.5f, 0.5f, -0.9f, {255, 255, 255, 128}},  {0.5f, 0.5f, -0.9f, {255, 255, 255, 128}},
  };
  GLuint vbo = 0;
  glGenBuffers(1, &vbo);
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof vertices, vertices, GL_STATIC_DRAW);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(Vertex), nullptr);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(Vertex), reinterpret_cast<void*>(12));
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glUseProgram(program);
  glClearColor(0.2f, 0.4f, 0.6f, 1.0f);
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glUniform2f(glGetUniformLocation(program, "offset"), 0.0f, 0.0f);
  glUniform4f(glGetUniformLocation(program, "tint"), 1.0f, 1.0f, 1.0f, 1.0f);
  glDrawArrays(GL_TRIANGLES, 0, 6);
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glUniform2f(glGetUniformLocation(program, "offset"), 0.3f, 0.2f);
  glUniform4f(glGetUniformLocation(program, "tint"), 1.0f, 0.5f, 0.25f, 1.0f);
  glDrawArrays(GL_TRIANGLE_STRIP, 6, 4);
  glFinish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return fail("usage: gl_scene OUTPUT.rgba");
  Display* display = XOpenDisplay(nullptr);
  if (display == nullptr) return fail("cannot open the display");
  const int attributes[] = {GLX_RENDER_TYPE, GLX_RGBA_BIT, GLX_DRAWABLE_TYPE, GLX_WINDOW_BIT, GLX_DOUBLEBUFFER, True,
                            GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8, GLX_BLUE_SIZE, 8, GLX_DEPTH_SIZE, 24, None};
  int count = 0;
  GLXFBConfig* configs = glXChooseFBConfig(display, DefaultScreen(display), attributes, &count);
  if (configs == nullptr || count == 0) return fail("no RGB8 + depth 24 double-buffered GLX config");
  XVisualInfo* visual = glXGetVisualFromFBConfig(display, configs[0]);
  XSetWindowAttributes wa{};
  const Window root = RootWindow(display, visual->screen);
  wa.colormap = XCreateColormap(display, root, visual->visual, AllocNone);
  const Window window = XCreateWindow(display, root, 0, 0, kSize, kSize, 0, visual->depth, InputOutput,
                                      visual->visual, CWColormap, &wa);
  XMapWindow(display, window);
  GLXContext context = glXCreateNewContext(display, configs[0], GLX_RGBA_TYPE, nullptr, True);
  if (context == nullptr || !glXMakeContextCurrent(display, window, window, context)) return fail("no GL context");
  std::printf("GL_RENDERER %s\nGL_VERSION %s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)),
              reinterpret_cast<const char*>(glGetString(GL_VERSION)));
  const GLuint program = make_program();
  if (program == 0) return fail("the GLSL 1.20 program does not compile or link");
  glViewport(0, 0, kSize, kSize);
  draw_scene(program);
  std::vector<unsigned char> pixels(kSize * kSize * 4);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, kSize, kSize, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  if (glGetError() != GL_NO_ERROR) return fail("a GL error");
  FILE* out = std::fopen(argv[1], "wb");
  if (out == nullptr || std::fwrite(pixels.data(), 1, pixels.size(), out) != pixels.size()) return fail("cannot write");
  std::fclose(out);
  glXMakeContextCurrent(display, None, None, nullptr);
  glXDestroyContext(display, context);
  XDestroyWindow(display, window);
  XCloseDisplay(display);
  return 0;
}
