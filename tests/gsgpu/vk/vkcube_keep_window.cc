// Preloaded into vkcube by vkcube_test.cc (LD_PRELOAD): vkcube destroys its window just before it
// exits, taking its last frame with it. Instead, the process stops itself there (SIGSTOP): its
// window, holding the last frame presented, stays on the X server while the test reads it back,
// then the test ends the process. By then vkcube has run all its frames and destroyed its Vulkan
// objects (demo_cleanup does that before it destroys the window).
#include <signal.h>
#include <xcb/xcb.h>

extern "C" __attribute__((visibility("default"))) xcb_void_cookie_t xcb_destroy_window(xcb_connection_t* connection,
                                                                                       xcb_window_t) {
  xcb_flush(connection);
  raise(SIGSTOP);
  return xcb_void_cookie_t{0};
}
