// A sandboxed process's system-call filter: a deny-list in classic BPF. Calls that reach beyond
// the process (debugging others, mounting, loading kernel code, keyrings, namespaces, io_uring,
// which runs operations the filter never sees) fail with EPERM; everything else is allowed, since
// vendor OpenCL drivers and the compiler use a wide and changing set of calls.
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cstring>
#include <vector>

#include "host/sandbox/sandbox_steps.h"

namespace gsvirt::sandbox {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
#else
#error "gsvirt-server's seccomp filter knows x86_64 and aarch64 only"
#endif

const int kDeniedCalls[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_pidfd_getfd,
    SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_move_mount, SYS_open_tree,
    SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_mount_setattr,
    SYS_kexec_load, SYS_kexec_file_load, SYS_init_module, SYS_finit_module, SYS_delete_module,
    SYS_bpf, SYS_perf_event_open, SYS_userfaultfd, SYS_reboot, SYS_swapon, SYS_swapoff,
    SYS_acct, SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_adjtimex, SYS_syslog,
    SYS_quotactl, SYS_keyctl, SYS_add_key, SYS_request_key, SYS_open_by_handle_at,
    SYS_name_to_handle_at, SYS_setns, SYS_unshare, SYS_sethostname, SYS_setdomainname,
    SYS_vhangup, SYS_fanotify_init, SYS_process_madvise,
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#if defined(__x86_64__)
    SYS_iopl, SYS_ioperm, SYS_uselib,
#endif
};

// clone() flags that create namespaces.
constexpr uint32_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |
                                     CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;

sock_filter statement(uint16_t code, uint32_t k) { return {code, 0, 0, k}; }
sock_filter jump(uint16_t code, uint32_t k, uint8_t if_true, uint8_t if_false) {
  return {code, if_true, if_false, k};
}

std::vector<sock_filter> deny_list_program() {
  constexpr uint32_t kDeny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  std::vector<sock_filter> p;
  // A call made through another ABI (32-bit x86 on x86_64) would bypass the numbers below.
  p.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 1, 0));
  p.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  p.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
  // The x32 ABI shares the arch value and marks its numbers with bit 30.
  p.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  p.push_back(statement(BPF_RET | BPF_K, kDeny));
#endif
  for (int nr : kDeniedCalls) {
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(nr), 0, 1));
    p.push_back(statement(BPF_RET | BPF_K, kDeny));
  }
  // clone3 passes its flags in memory the filter cannot read: ENOSYS makes the C library fall
  // back to clone(), whose flags it can.
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
  p.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3));
  p.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
  p.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, kNamespaceFlags, 0, 1));
  p.push_back(statement(BPF_RET | BPF_K, kDeny));
  p.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  return p;
}

}  // namespace

bool install_syscall_filter(std::string* error) {
  std::vector<sock_filter> program = deny_list_program();
  sock_fprog fprog{static_cast<unsigned short>(program.size()), program.data()};
  // no_new_privs is set by the caller; it is what lets an unprivileged process load a filter.
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
    *error = std::string("seccomp filter: ") + strerror(errno);
    return false;
  }
  return true;
}

}  // namespace gsvirt::sandbox
