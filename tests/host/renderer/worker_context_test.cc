// Contexts that run in a context worker process (issue 12 point 1; host/renderer/worker_context.h):
// the echo test context served by a worker (echo_worker_main.cc) through the renderer core, a
// worker that dies, hangs or is sandboxed, and a fake worker whose replies are hostile.
#include "host/renderer/worker_context.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "host/renderer/capset_registry.h"
#include "host/renderer/renderer.h"
#include "host/renderer/worker_channel.h"
#include "host/sandbox/sandbox_steps.h"
#include "tests/common/log_capture.h"
#include "tests/host/renderer/echo_context.h"

namespace gsvirt::renderer {
namespace {

// The proxy's capset: its factory starts the echo worker, which creates the echo context.
constexpr uint32_t kIsolatedEchoCapset = 29;
int g_timeout_ms = 30000;
std::map<uint32_t, pid_t> g_worker_pids;  // ctx_id -> its worker

std::unique_ptr<Context> create_isolated_echo(const ContextCreateInfo& info) {
  WorkerOptions options;
  options.worker_path = ECHO_WORKER_PATH;
  options.capset_id = test::kEchoCapsetId;
  options.timeout_ms = g_timeout_ms;
  auto context = start_worker_context(info, options);
  if (context) g_worker_pids[info.ctx_id] = static_cast<WorkerContext*>(context.get())->pid();
  return context;
}

class WorkerContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CapsetInfo info;
    info.capset_id = kIsolatedEchoCapset;
    info.max_version = 1;
    info.fill_caps = [](uint32_t, std::vector<uint8_t>& out) { out.assign(8, 0); };
    info.create = create_isolated_echo;
    register_capset(info);
    g_timeout_ms = 30000;
  }

  // A context with a 4 KiB host blob attached for replies.
  uint32_t* open_context(uint32_t ctx) {
    EXPECT_EQ(renderer.create_context(ctx, kIsolatedEchoCapset, "isolated"), 0);
    BlobCreateInfo blob;
    blob.res_id = 100 + ctx;
    blob.ctx_id = ctx;
    blob.blob_mem = kBlobMemHost3d;
    blob.size = 4096;
    EXPECT_EQ(renderer.create_blob(blob), 0);
    EXPECT_EQ(renderer.attach_resource(ctx, 100 + ctx), 0);
    void* map = nullptr;
    uint64_t size = 0;
    EXPECT_EQ(renderer.get_map(100 + ctx, &map, &size), 0);
    std::vector<uint32_t> cmds;
    test::echo_set_reply(cmds, 100 + ctx, 0);
    EXPECT_EQ(submit(ctx, cmds), 0);
    return static_cast<uint32_t*>(map);
  }
  int submit(uint32_t ctx, const std::vector<uint32_t>& cmds) {
    return renderer.submit(ctx, cmds.data(), cmds.size() * 4);
  }
  // OPEN in the worker: 0 or the errno.
  uint32_t open_errno(uint32_t ctx, uint32_t* reply, const std::string& path) {
    std::vector<uint32_t> cmds;
    test::echo_open(cmds, path);
    EXPECT_EQ(submit(ctx, cmds), 0);
    return reply[1];
  }
  // ECHO through the worker: the value comes back in the shared blob.
  bool echoes(uint32_t ctx, uint32_t* reply, uint32_t value) {
    std::vector<uint32_t> cmds;
    test::echo_echo(cmds, value);
    return submit(ctx, cmds) == 0 && reply[1] == value;
  }

  std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> retired;
  Renderer renderer{[this](uint32_t ctx, uint32_t ring, uint64_t fence) { retired.emplace_back(ctx, ring, fence); }};
  testing::LogCapture log;
};

TEST_F(WorkerContextTest, CommandsBlobsAndFencesGoThroughTheWorker) {
  uint32_t* reply = open_context(1);
  EXPECT_TRUE(echoes(1, reply, 42));
  EXPECT_NE(g_worker_pids[1], getpid());
  // A fence the worker holds retires when it says so; one on an idle ring retires at once.
  std::vector<uint32_t> hold;
  test::echo_hold(hold, 0);
  ASSERT_EQ(submit(1, hold), 0);
  ASSERT_EQ(renderer.create_fence(1, 0, 77), 0);
  ASSERT_EQ(renderer.create_fence(1, 1, 78), 0);
  EXPECT_EQ(retired, (decltype(retired){{1, 1, 78}}));
  std::vector<uint32_t> complete;
  test::echo_complete(complete, 0, 1);
  ASSERT_EQ(submit(1, complete), 0);
  renderer.poll();
  EXPECT_EQ(retired.back(), std::make_tuple(1u, 0u, uint64_t(77)));
  // A context that finishes only when asked: the proxy asks the worker on poll().
  std::vector<uint32_t> busy;
  test::echo_busy_for(busy, 2, 2);
  ASSERT_EQ(submit(1, busy), 0);
  ASSERT_EQ(renderer.create_fence(1, 2, 79), 0);
  for (int i = 0; i < 3 && retired.back() != std::make_tuple(1u, 2u, uint64_t(79)); i++) renderer.poll();
  EXPECT_EQ(retired.back(), std::make_tuple(1u, 2u, uint64_t(79)));
  EXPECT_EQ(renderer.destroy_context(1), 0);
}

TEST_F(WorkerContextTest, Issue12GuestPagesCannotReachAWorkerContext) {
  open_context(1);
  std::vector<uint8_t> pages(4096);
  iovec iov{pages.data(), pages.size()};
  BlobCreateInfo blob;
  blob.res_id = 7;
  blob.blob_mem = kBlobMemGuest;
  blob.size = pages.size();
  blob.iov = {&iov, 1};
  ASSERT_EQ(renderer.create_blob(blob), 0);
  EXPECT_EQ(renderer.attach_resource(1, 7), -ENOTSUP);
  EXPECT_TRUE(log.contains("cannot reach it")) << log.all();
}

TEST_F(WorkerContextTest, Issue12KilledWorkerMakesOnlyItsContextFatal) {
  uint32_t* first = open_context(1);
  uint32_t* second = open_context(2);
  std::vector<uint32_t> hold;
  test::echo_hold(hold, 0);
  ASSERT_EQ(submit(1, hold), 0);
  ASSERT_EQ(renderer.create_fence(1, 0, 5), 0);
  ASSERT_TRUE(retired.empty());
  ASSERT_EQ(kill(g_worker_pids[1], SIGKILL), 0);
  EXPECT_FALSE(echoes(1, first, 1));
  EXPECT_EQ(submit(1, {}), -EIO);  // sticky
  // Its pending fence retires: no guest waits forever on a context that is gone.
  renderer.poll();
  EXPECT_EQ(retired, (decltype(retired){{1, 0, 5}}));
  EXPECT_TRUE(log.contains("killed by signal 9")) << log.all();
  EXPECT_TRUE(echoes(2, second, 2));
  EXPECT_EQ(renderer.destroy_context(1), 0);
}

TEST_F(WorkerContextTest, Issue12WorkerKilledDuringACommandEndsTheWaitAtOnce) {
  open_context(1);
  uint32_t* second = open_context(2);
  std::vector<uint32_t> block;
  test::echo_block(block);
  int result = 0;
  std::thread guest([&] { result = submit(1, block); });  // waits on the worker's endless command
  // Whether the kill comes before or after the worker reads the command, the wait ends now,
  // long before the 30 s time limit.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(kill(g_worker_pids[1], SIGKILL), 0);
  guest.join();
  EXPECT_EQ(result, -EIO);
  EXPECT_TRUE(log.contains("the peer closed the connection")) << log.all();
  EXPECT_TRUE(echoes(2, second, 4));
}

TEST_F(WorkerContextTest, Issue12HungWorkerIsKilledAtTheTimeLimit) {
  g_timeout_ms = 300;
  open_context(1);
  uint32_t* second = open_context(2);
  std::vector<uint32_t> block;
  test::echo_block(block);
  // The worker waits forever in the command; the proxy gives up, kills it, and says why.
  EXPECT_EQ(submit(1, block), -EIO);
  EXPECT_TRUE(log.contains("no answer within the time limit")) << log.all();
  pid_t pid = g_worker_pids[1];
  EXPECT_NE(kill(pid, 0), 0);  // gone (killed and reaped)
  EXPECT_TRUE(echoes(2, second, 3));
}

std::string status_field(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0) return line.substr(field.size() + 1);
  return "";
}

TEST_F(WorkerContextTest, Issue12WorkerRunsInTheSandbox) {
  // A file of this process's own that the worker must not see, and a secret in its environment.
  char dir[] = "/tmp/gsvirt-worker-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string secret_file = std::string(dir) + "/secret";
  std::ofstream(secret_file) << "secret";
  setenv("AWS_SECRET_ACCESS_KEY", "x", 1);
  setenv("SSH_AUTH_SOCK", "/tmp/agent", 1);
  uint32_t* reply = open_context(1);
  pid_t pid = g_worker_pids[1];
  EXPECT_NE(status_field(pid, "Seccomp").find('2'), std::string::npos);
  EXPECT_NE(status_field(pid, "NoNewPrivs").find('1'), std::string::npos);
  // The environment it was started with holds no secret of ours and a TMPDIR of its own (its
  // /proc/PID/environ is readable only by root: the worker is not dumpable).
  std::ifstream environ_file("/proc/" + std::to_string(pid) + "/environ");
  std::string environment((std::istreambuf_iterator<char>(environ_file)), std::istreambuf_iterator<char>());
  if (!environment.empty()) {
    EXPECT_EQ(environment.find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
    EXPECT_EQ(environment.find("SSH_AUTH_SOCK"), std::string::npos);
    EXPECT_NE(environment.find("/gsvirt-worker-"), std::string::npos);
  }
  // What the context reaches: system libraries yes; with Landlock, not /etc/passwd nor our file.
  EXPECT_EQ(open_errno(1, reply, "/usr/lib"), 0u);
  if (sandbox::landlock_abi() > 0) {
    EXPECT_EQ(open_errno(1, reply, "/etc/passwd"), uint32_t(EACCES));
    EXPECT_EQ(open_errno(1, reply, secret_file), uint32_t(EACCES));
  }
  unsetenv("AWS_SECRET_ACCESS_KEY");
  unsetenv("SSH_AUTH_SOCK");
  unlink(secret_file.c_str());
  rmdir(dir);
}

// A fake worker: the test writes its replies into the socket before the proxy asks, so the
// proxy reads exactly what a compromised worker would send.
class HostileWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    worker_ = std::make_unique<worker::Channel>(fds[1]);
    ContextCreateInfo info;
    info.ctx_id = 9;
    info.retire_fence = [](void* self, uint32_t, uint32_t ring, uint64_t fence) {
      static_cast<HostileWorkerTest*>(self)->retired.emplace_back(ring, fence);
    };
    info.retire_cookie = this;
    proxy_ = std::make_unique<WorkerContext>(info, fds[0], -1, 500);
    worker::CreatedBody created{0, 0};
    say(worker::kCreated, &created, sizeof created);
    ASSERT_EQ(proxy_->create(30, "hostile"), 0);
  }
  void say(uint32_t op, const void* body, size_t size, int fd = -1) {
    ASSERT_EQ(worker_->send(op, body, size, std::nullopt, nullptr, 0, fd), worker::IoStatus::kOk);
  }
  void submitted(int32_t result, uint32_t fatal) {
    worker::SubmittedBody body{result, fatal};
    say(worker::kSubmitted, &body, sizeof body);
  }
  void retire(uint32_t ring, uint64_t fence) {
    worker::RetiredBody body{ring, 0, fence};
    say(worker::kRetired, &body, sizeof body);
  }
  int submit() {
    uint32_t nop[2] = {test::kEchoNop, 2};
    return proxy_->submit_cmd(nop, sizeof nop);
  }
  // A fence the fake worker keeps (not done).
  void hand_fence(uint32_t ring, uint64_t fence) {
    worker::FenceSubmittedBody body{ring, 0, fence};
    say(worker::kFenceSubmitted, &body, sizeof body);
    ASSERT_FALSE(proxy_->submit_fence(ring, fence));
  }
  void expect_lost(const char* why) {
    EXPECT_TRUE(proxy_->fatal());
    EXPECT_NE(proxy_->fatal_message().find(why), std::string::npos) << proxy_->fatal_message();
    EXPECT_EQ(submit(), -EIO);
  }

  std::unique_ptr<worker::Channel> worker_;
  std::unique_ptr<WorkerContext> proxy_;
  std::vector<std::pair<uint32_t, uint64_t>> retired;
  testing::LogCapture log;
};

TEST_F(HostileWorkerTest, WellFormedRepliesAreAccepted) {
  submitted(-EINVAL, 0);
  EXPECT_EQ(submit(), -EINVAL);
  hand_fence(0, 10);
  hand_fence(0, 11);
  retire(0, 11);  // retires 10 as well, as the renderer does
  submitted(0, 0);
  EXPECT_EQ(submit(), 0);
  EXPECT_EQ(retired, (decltype(retired){{0, 11}}));
  EXPECT_FALSE(proxy_->fatal());
}

TEST_F(HostileWorkerTest, Issue12ResultsOutOfRangeAreRefused) {
  submitted(5, 0);
  EXPECT_EQ(submit(), -EIO);
  expect_lost("answered SUBMIT with result 5");
}

TEST_F(HostileWorkerTest, Issue12FatalFlagOutOfRangeIsRefused) {
  submitted(0, 7);
  EXPECT_EQ(submit(), -EIO);
  expect_lost("fatal 7");
}

TEST_F(HostileWorkerTest, Issue12FencesTheProxyDidNotHandOutAreRefused) {
  hand_fence(0, 10);
  retire(1, 10);  // right id, wrong ring
  submitted(0, 0);
  EXPECT_EQ(submit(), -EIO);
  expect_lost("retired fence 10 of ring 1, which is not pending there");
  // The pending fence is retired so that no guest waits on a lost context.
  EXPECT_EQ(retired, (decltype(retired){{0, 10}}));
}

TEST_F(HostileWorkerTest, Issue12AFenceRetiresOnlyOnce) {
  hand_fence(0, 10);
  retire(0, 10);
  retire(0, 10);
  submitted(0, 0);
  EXPECT_EQ(submit(), -EIO);
  expect_lost("not pending");
}

TEST_F(HostileWorkerTest, Issue12FenceAnswersForAnotherFenceAreRefused) {
  worker::FenceSubmittedBody body{0, 1, 999};
  say(worker::kFenceSubmitted, &body, sizeof body);
  EXPECT_TRUE(proxy_->submit_fence(0, 10));  // retired at once: nothing will run any more
  expect_lost("another fence");
}

TEST_F(HostileWorkerTest, Issue12WrongReplyKindsAndSizesAreRefused) {
  worker::CreatedBody created{0, 0};
  say(worker::kCreated, &created, sizeof created);
  EXPECT_EQ(submit(), -EIO);
  expect_lost("answered CREATED of 8 bytes where SUBMITTED of 8 was due");
}

TEST_F(HostileWorkerTest, Issue12OversizedRepliesAreRefusedUnread) {
  // A header that announces a megabyte: refused before a byte of it is read or allocated.
  worker::Header header{worker::kSubmitted, 1u << 20};
  ASSERT_EQ(write(worker_->fd(), &header, sizeof header), ssize_t(sizeof header));
  EXPECT_EQ(submit(), -EIO);
  expect_lost("larger than allowed");
}

TEST_F(HostileWorkerTest, Issue12DescriptorsFromTheWorkerAreRefused) {
  worker::SubmittedBody body{0, 0};
  say(worker::kSubmitted, &body, sizeof body, STDIN_FILENO);
  EXPECT_EQ(submit(), -EIO);
  expect_lost("sent descriptors");
}

TEST_F(HostileWorkerTest, Issue12SilentWorkerTimesOut) {
  hand_fence(3, 1);
  EXPECT_EQ(submit(), -EIO);  // nothing answers within the 0.5 s limit
  expect_lost("no answer within the time limit");
  EXPECT_EQ(retired, (decltype(retired){{3, 1}}));
}

TEST_F(HostileWorkerTest, Issue12WorkerThatHangsUpMakesTheContextFatal) {
  worker_.reset();
  EXPECT_EQ(submit(), -EIO);
  expect_lost("closed");
}

}  // namespace
}  // namespace gsvirt::renderer
