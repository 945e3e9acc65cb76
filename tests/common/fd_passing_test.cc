// Descriptors over a unix socket (common/fd_passing.h): they arrive with their bytes, close-on-exec,
// and a message that carried more than a receiver takes says so instead of silently losing them.
#include "common/fd_passing.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace gsvirt {
namespace {

class FdPassing : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair_), 0); }
  void TearDown() override {
    close(pair_[0]);
    close(pair_[1]);
  }
  int pair_[2] = {-1, -1};
};

TEST_F(FdPassing, DescriptorsArriveWithTheirBytesCloseOnExec) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  char bytes[] = "hello";
  iovec iov{bytes, sizeof bytes};
  ASSERT_EQ(send_with_fds(pair_[0], &iov, 1, std::span<const int>(pipe_fds, 2), 0), ssize_t(sizeof bytes));
  char got[sizeof bytes] = {};
  std::vector<int> fds;
  const FdReceive r = receive_with_fds(pair_[1], got, sizeof got, 0, &fds);
  EXPECT_EQ(r.bytes, ssize_t(sizeof bytes));
  EXPECT_FALSE(r.fds_truncated);
  EXPECT_STREQ(got, "hello");
  ASSERT_EQ(fds.size(), 2u);
  for (int fd : fds) EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  // The received write end reaches the original read end: they are the same pipe.
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  char c = 0;
  EXPECT_EQ(read(pipe_fds[0], &c, 1), 1);
  EXPECT_EQ(c, 'x');
  for (int fd : fds) close(fd);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

TEST_F(FdPassing, MoreThanAMessageCarriesIsRefusedOnSendAndFlaggedOnReceive) {
  std::vector<int> many(kMaxFdsPerMessage + 1, STDIN_FILENO);
  char byte = 1;
  iovec iov{&byte, 1};
  EXPECT_EQ(send_with_fds(pair_[0], &iov, 1, many, 0), -1);
  EXPECT_EQ(errno, EINVAL);

  // A peer that sends more anyway (raw sendmsg): the receiver keeps what fit and learns the rest was cut.
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * (kMaxFdsPerMessage + 1))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* cm = CMSG_FIRSTHDR(&msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int) * many.size());
  std::memcpy(CMSG_DATA(cm), many.data(), sizeof(int) * many.size());
  ASSERT_EQ(sendmsg(pair_[0], &msg, 0), 1);
  std::vector<int> fds;
  char got = 0;
  const FdReceive r = receive_with_fds(pair_[1], &got, 1, 0, &fds);
  EXPECT_EQ(r.bytes, 1);
  EXPECT_TRUE(r.fds_truncated);
  EXPECT_LE(fds.size(), kMaxFdsPerMessage);
  for (int fd : fds) close(fd);
}

TEST_F(FdPassing, PlainBytesAndAClosedPeer) {
  char byte = 7;
  iovec iov{&byte, 1};
  ASSERT_EQ(send_with_fds(pair_[0], &iov, 1, {}, 0), 1);
  std::vector<int> fds;
  char got = 0;
  EXPECT_EQ(receive_with_fds(pair_[1], &got, 1, 0, &fds).bytes, 1);
  EXPECT_EQ(got, 7);
  EXPECT_TRUE(fds.empty());
  close(pair_[0]);
  pair_[0] = socket(AF_UNIX, SOCK_STREAM, 0);  // TearDown closes something valid
  EXPECT_EQ(receive_with_fds(pair_[1], &got, 1, 0, &fds).bytes, 0) << "end of stream";
  EXPECT_EQ(receive_with_fds(pair_[1], &got, 1, MSG_DONTWAIT, &fds).bytes, 0);
}

}  // namespace
}  // namespace gsvirt
