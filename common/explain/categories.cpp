#include "explain/categories.hpp"

#include "explain/source_files.hpp"

#include <unordered_map>

namespace zc {

namespace {

using C = Category;
using R = CategoryRule;

// THE TABLE. Kernel function name -> category, for every kernel and driver we meet. Exact names are
// looked up first; then the prefix and "contains" rules in this order, the first match winning, so a
// specific rule (tcp_gro_receive is GRO, tcp_zerocopy_receive is zero-copy) sits above the general one
// (tcp_ is TCP/IP). Compiler suffixes (".isra.0", ".constprop.0", ".part.0", ".cold") are cut before
// matching. Names seen on 5.10, 6.1 and 6.18 kernels, virtio-net, mlx5 and rxe; keep tests/unit's
// explain_categories_test.cpp in step when adding one.
const std::vector<CategoryRule>& table() {
    static const std::vector<CategoryRule> rules = {
        // Idle: not work. (A sample of the idle task in interrupt context is work: is_interrupt_entry.)
        {R::exact, "default_idle", C::idle},
        {R::exact, "default_idle_call", C::idle},
        {R::exact, "do_idle", C::idle},
        {R::exact, "cpu_idle_poll", C::idle},
        {R::exact, "poll_idle", C::idle},
        {R::exact, "native_safe_halt", C::idle},
        {R::exact, "pv_native_safe_halt", C::idle},
        {R::exact, "safe_halt", C::idle},
        {R::exact, "acpi_safe_halt", C::idle},
        {R::exact, "mwait_idle_with_hints", C::idle},
        {R::exact, "cpu_startup_entry", C::idle},
        {R::exact, "start_secondary", C::idle},
        {R::prefix, "arch_cpu_idle", C::idle},
        {R::prefix, "cpuidle_", C::idle},
        {R::prefix, "intel_idle", C::idle},
        {R::prefix, "acpi_idle", C::idle},
        {R::prefix, "amd_e400_idle", C::idle},  // the lab's TCG guests (-cpu max) idle here
        {R::prefix, "acpi_processor_ffh_cstate", C::idle},
        {R::prefix, "haltpoll_", C::idle},
        {R::prefix, "mwait_idle", C::idle},
        {R::prefix, "__cpuidle", C::idle},

        // Helpers whose cost is their caller's, and the IRQ-enable points where a cpu-clock sample held
        // back while interrupts were off is delivered: the work is the caller's.
        {R::exact, "__x86_return_thunk", C::inherit},
        {R::prefix, "__x86_indirect_thunk", C::inherit},
        {R::prefix, "__x86_indirect_jump_thunk", C::inherit},
        {R::prefix, "srso_", C::inherit},
        {R::prefix, "retbleed_", C::inherit},
        {R::exact, "_raw_spin_unlock_irqrestore", C::inherit},
        // a paravirtual guest's IRQ enable (PVM here, Xen PV) and the thunk that calls it: 15-20 % of a
        // loopback stream's samples on this VM landed there, filed as other kernel
        {R::exact, "pvm_irq_enable", C::inherit},
        {R::prefix, "xen_irq_enable", C::inherit},
        {R::prefix, "__raw_callee_save_", C::inherit},
        {R::exact, "_raw_spin_unlock_irq", C::inherit},
        {R::exact, "_raw_spin_unlock_bh", C::inherit},
        {R::exact, "_raw_read_unlock_irqrestore", C::inherit},
        {R::exact, "_raw_write_unlock_irqrestore", C::inherit},
        {R::exact, "__local_bh_enable_ip", C::inherit},
        {R::exact, "local_bh_enable", C::inherit},
        {R::exact, "memset", C::inherit},
        {R::exact, "__memset", C::inherit},
        {R::exact, "memset_orig", C::inherit},
        {R::exact, "memset_erms", C::inherit},
        {R::exact, "__rcu_read_lock", C::inherit},
        {R::exact, "__rcu_read_unlock", C::inherit},
        {R::exact, "preempt_count_add", C::inherit},
        {R::exact, "preempt_count_sub", C::inherit},
        {R::prefix, "ktime_get", C::inherit},   // ktime_get_ts64 ...: clock reads (read_hpet under TCG)
        {R::prefix, "posix_get_", C::inherit},  // clock_gettime's clocks: the system call's time
        {R::exact, "read_tsc", C::inherit},
        {R::exact, "read_hpet", C::inherit},  // the clocksource of a TCG guest (the lab's): as read_tsc
        {R::exact, "native_sched_clock", C::inherit},
        {R::exact, "sched_clock", C::inherit},
        {R::exact, "sched_clock_cpu", C::inherit},
        {R::exact, "kvm_clock_get_cycles", C::inherit},
        {R::exact, "kvm_clock_read", C::inherit},
        {R::exact, "pvclock_clocksource_read", C::inherit},
        {R::prefix, "pvclock_clocksource_read", C::inherit},
        {R::prefix, "__put_user_", C::inherit},
        {R::exact, "__get_user_1", C::inherit},
        {R::exact, "__get_user_2", C::inherit},
        {R::exact, "__get_user_4", C::inherit},
        {R::exact, "__get_user_8", C::inherit},
        {R::exact, "__get_user_nocheck_1", C::inherit},
        {R::exact, "__get_user_nocheck_2", C::inherit},
        {R::exact, "__get_user_nocheck_4", C::inherit},
        {R::exact, "__get_user_nocheck_8", C::inherit},
        {R::prefix, "__list_del_entry_valid", C::inherit},
        {R::prefix, "__list_add_valid", C::inherit},
        // block cgroups' throttle check on every return to user space; 6.1's pipe iov_iter check inside
        // copy_page_to_iter
        {R::exact, "blkcg_maybe_throttle_current", C::inherit},
        {R::exact, "sanity", C::inherit},
        {R::prefix, "xa_load", C::inherit},  // xarray lookups (rxe's object pools, the page cache)
        {R::prefix, "xas_", C::inherit},
        {R::prefix, "kernel_fpu_", C::inherit},  // SIMD in the kernel (crc32-pclmul, aesni): its user's
        // The hash API's glue: its user's (crc32c for ext4 and rxe's ICRC is a checksum, GHASH under gcm crypto).
        {R::prefix, "crypto_shash_", C::inherit},
        {R::prefix, "crypto_ahash_", C::inherit},
        {R::prefix, "shash_", C::inherit},
        {R::prefix, "save_fpregs", C::inherit},
        // Local labels of crc32-pclmul's assembly, listed by kallsyms as if functions: their function's.
        {R::exact, "loop_64", C::inherit},
        {R::exact, "loop_16", C::inherit},
        {R::exact, "less_64", C::inherit},

        // Data copy (user <-> kernel, skb <-> skb), hardened-usercopy checks included (paid per copy).
        {R::exact, "memcpy", C::copy},
        {R::exact, "__memcpy", C::copy},
        {R::exact, "memmove", C::copy},
        {R::exact, "__memmove", C::copy},
        {R::prefix, "memcpy_", C::copy},
        {R::prefix, "memmove_", C::copy},
        {R::exact, "rep_movs_alternative", C::copy},
        {R::prefix, "copy_user_", C::copy},
        {R::prefix, "__copy_user", C::copy},
        {R::prefix, "_copy_to_", C::copy},
        {R::prefix, "_copy_from_", C::copy},
        {R::prefix, "copy_to_user", C::copy},
        {R::prefix, "copy_from_user", C::copy},
        {R::prefix, "copy_page_to_iter", C::copy},
        {R::prefix, "copy_page_from_iter", C::copy},
        {R::prefix, "copy_to_iter", C::copy},
        {R::prefix, "copy_from_iter", C::copy},
        {R::prefix, "copyin", C::copy},
        {R::prefix, "copyout", C::copy},
        {R::prefix, "copy_mc_", C::copy},
        {R::exact, "simple_copy_to_iter", C::copy},
        {R::prefix, "skb_copy_datagram", C::copy},
        {R::prefix, "__skb_datagram_iter", C::copy},
        {R::exact, "skb_copy_bits", C::copy},
        {R::prefix, "csum_and_copy", C::copy},
        {R::prefix, "csum_partial_copy", C::copy},
        {R::prefix, "skb_copy_and_csum", C::copy},
        {R::exact, "__check_object_size", C::copy},
        {R::prefix, "check_heap_object", C::copy},
        {R::exact, "__virt_addr_valid", C::copy},

        // Checksums computed in software.
        {R::prefix, "csum_", C::checksum},
        {R::exact, "do_csum", C::checksum},
        {R::prefix, "__skb_checksum", C::checksum},
        {R::prefix, "skb_checksum", C::checksum},
        {R::prefix, "crc32", C::checksum},  // crc32c (iSCSI, ext4), crc32_le and crc32_pclmul_le (RoCE's ICRC)

        // Crypto: AES-GCM (aesni's glue and assembly, the generic gcm template, lib/crypto's AES), GHASH,
        // ChaCha20/Poly1305, the crypto API's AEAD/skcipher glue and its scatterlist walks, and kTLS's own
        // record work (framing, the encrypt and decrypt calls, its stream parser). A data copy inside kTLS
        // (sk_msg_memcopy_from_iter -> copy_from_iter, process_rx_list -> skb_copy_datagram_msg) stays
        // data copy: the leaf decides, and those leaves are the copy rules above. Assembly labels (aesni's
        // GCM loops: _encrypt_by_8_new12096 ...) are named by their module, at the end of the table.
        {R::prefix, "aesni", C::crypto},
        {R::prefix, "_aesni", C::crypto},
        {R::prefix, "aes_", C::crypto},    // lib/crypto's aes_encrypt; aesni's aes_ctr_enc_*, 6.x's aes_gcm_*
        {R::prefix, "aesti_", C::crypto},  // the time-invariant generic AES
        {R::prefix, "crypto_aes_", C::crypto},
        {R::prefix, "gcm", C::crypto},  // gcm.ko's gcm_hash ..., aesni's gcmaes_crypt_by_sg
        {R::prefix, "generic_gcmaes_", C::crypto},
        {R::prefix, "crypto_gcm_", C::crypto},
        {R::prefix, "crypto_rfc4106_", C::crypto},
        {R::prefix, "helper_rfc4106_", C::crypto},
        {R::prefix, "ghash", C::crypto},
        {R::prefix, "clmul_ghash", C::crypto},
        {R::prefix, "__clmul_gf128mul", C::crypto},
        {R::prefix, "gf128mul_", C::crypto},
        {R::prefix, "chacha", C::crypto},  // chacha_block_generic, chacha_4block_xor_avx2, chachapoly_encrypt
        {R::prefix, "hchacha", C::crypto},
        {R::prefix, "crypto_chacha_", C::crypto},
        {R::prefix, "crypto_xchacha_", C::crypto},
        {R::prefix, "poly1305", C::crypto},
        {R::prefix, "__poly1305", C::crypto},
        {R::prefix, "crypto_poly1305_", C::crypto},
        {R::prefix, "crypto_aead_", C::crypto},
        {R::prefix, "crypto_skcipher_", C::crypto},
        {R::prefix, "crypto_lskcipher_", C::crypto},
        {R::prefix, "crypto_cipher_", C::crypto},
        {R::prefix, "crypto_ctr_", C::crypto},  // the ctr template: gcm(aes) without aesni_intel is ctr(aes) + ghash
        {R::prefix, "crypto_rfc3686_", C::crypto},
        {R::prefix, "simd_aead_", C::crypto},  // crypto_simd: the wrapper aesni's AEADs are reached through
        {R::prefix, "simd_skcipher_", C::crypto},
        {R::prefix, "cryptd_", C::crypto},
        {R::exact, "crypto_inc", C::crypto},
        {R::exact, "__crypto_xor", C::crypto},
        {R::prefix, "scatterwalk_", C::crypto},
        {R::prefix, "skcipher_walk_", C::crypto},
        {R::prefix, "tls_sw_", C::crypto},  // kTLS by name, also where it is built in
        {R::prefix, "tls_push_", C::crypto},
        {R::prefix, "tls_tx_", C::crypto},
        {R::prefix, "tls_rx_", C::crypto},
        {R::prefix, "tls_encrypt", C::crypto},
        {R::prefix, "tls_decrypt", C::crypto},
        {R::prefix, "tls_enc_", C::crypto},
        {R::prefix, "tls_strp_", C::crypto},
        {R::prefix, "tls_device_", C::crypto},
        {R::prefix, "tls_make_aad", C::crypto},
        {R::prefix, "tls_setup_from_iter", C::crypto},
        {R::prefix, "decrypt_skb", C::crypto},         // not decrypt_bh (fscrypt's buffer heads)
        {R::exact, "bpf_exec_tx_verdict", C::crypto},  // tls_sw's path to tls_push_record

        // Zero-copy bookkeeping: MSG_ZEROCOPY's pinned-page accounting and completions, the error queue,
        // TCP_ZEROCOPY_RECEIVE's mapping, io_uring's notifications.
        {R::contains, "zerocopy", C::zerocopy},
        {R::prefix, "net_zcopy", C::zerocopy},
        {R::prefix, "mm_account_pinned_pages", C::zerocopy},
        {R::prefix, "mm_unaccount_pinned_pages", C::zerocopy},
        {R::exact, "sock_dequeue_err_skb", C::zerocopy},
        {R::exact, "sock_recv_errqueue", C::zerocopy},
        {R::exact, "ip_recv_error", C::zerocopy},
        {R::exact, "ipv6_recv_error", C::zerocopy},
        {R::prefix, "io_notif", C::zerocopy},
        {R::prefix, "io_tx_ubuf", C::zerocopy},
        {R::prefix, "io_send_zc", C::zerocopy},
        {R::prefix, "io_sendzc", C::zerocopy},
        {R::prefix, "io_sendmsg_zc", C::zerocopy},

        // Locks and RCU.
        {R::prefix, "_raw_spin_", C::lock},
        {R::prefix, "_raw_read_", C::lock},
        {R::prefix, "_raw_write_", C::lock},
        {R::contains, "queued_spin_lock", C::lock},
        {R::contains, "queued_read_lock", C::lock},
        {R::contains, "queued_write_lock", C::lock},
        {R::prefix, "mutex_", C::lock},
        {R::prefix, "__mutex_", C::lock},
        {R::prefix, "lock_sock", C::lock},
        {R::prefix, "__lock_sock", C::lock},
        {R::exact, "release_sock", C::lock},
        {R::exact, "__release_sock", C::tcp},  // runs the backlog: TCP's receive work
        {R::prefix, "down_read", C::lock},
        {R::prefix, "down_write", C::lock},
        {R::prefix, "up_read", C::lock},
        {R::prefix, "up_write", C::lock},
        {R::prefix, "rwsem_", C::lock},
        {R::prefix, "osq_lock", C::lock},
        {R::prefix, "rcu_", C::lock},
        {R::prefix, "__rcu_", C::lock},
        {R::prefix, "call_rcu", C::lock},

        // Scheduling, wake-ups, waiting, timers.
        {R::prefix, "schedule", C::sched},
        {R::prefix, "__schedule", C::sched},
        {R::prefix, "__cond_resched", C::sched},
        {R::prefix, "pick_next_", C::sched},
        {R::prefix, "pick_task", C::sched},
        {R::prefix, "try_to_wake_up", C::sched},
        {R::prefix, "wake_up", C::sched},
        {R::prefix, "__wake_up", C::sched},
        {R::prefix, "ttwu_", C::sched},
        {R::prefix, "enqueue_", C::sched},
        {R::prefix, "dequeue_", C::sched},
        {R::prefix, "update_curr", C::sched},
        {R::prefix, "update_load_avg", C::sched},
        {R::prefix, "__update_load_avg", C::sched},
        {R::prefix, "update_rq_clock", C::sched},
        {R::prefix, "update_cfs_", C::sched},
        {R::prefix, "update_min_vruntime", C::sched},
        {R::prefix, "reweight_", C::sched},
        {R::prefix, "select_task_rq", C::sched},
        {R::prefix, "select_idle_", C::sched},
        {R::prefix, "finish_task_switch", C::sched},
        {R::prefix, "prepare_task_switch", C::sched},
        {R::prefix, "__switch_to", C::sched},
        {R::prefix, "switch_mm", C::sched},
        {R::prefix, "switch_fpu", C::sched},
        {R::prefix, "set_next_entity", C::sched},
        {R::prefix, "put_prev_", C::sched},
        {R::prefix, "check_preempt", C::sched},
        {R::prefix, "wakeup_preempt", C::sched},
        {R::prefix, "resched_", C::sched},
        {R::prefix, "sched_", C::sched},
        {R::prefix, "__sched_", C::sched},
        {R::prefix, "psi_", C::sched},
        {R::prefix, "cpuacct_", C::sched},
        {R::prefix, "account_", C::sched},
        {R::prefix, "task_tick", C::sched},
        {R::prefix, "scheduler_tick", C::sched},
        {R::prefix, "sched_tick", C::sched},
        {R::prefix, "newidle_balance", C::sched},
        {R::prefix, "update_blocked_averages", C::sched},
        {R::prefix, "rebalance_domains", C::sched},
        {R::prefix, "_nohz_idle_balance", C::sched},
        {R::prefix, "sched_balance", C::sched},
        {R::prefix, "load_balance", C::sched},
        {R::prefix, "update_sd_lb", C::sched},
        {R::prefix, "available_idle_cpu", C::sched},
        {R::prefix, "sk_wait_data", C::sched},
        {R::prefix, "sk_stream_wait", C::sched},
        {R::prefix, "wait_woken", C::sched},
        {R::prefix, "woken_wake_function", C::sched},
        {R::prefix, "autoremove_wake_function", C::sched},
        {R::prefix, "default_wake_function", C::sched},
        {R::prefix, "prepare_to_wait", C::sched},
        {R::prefix, "finish_wait", C::sched},
        {R::prefix, "add_wait_queue", C::sched},
        {R::prefix, "remove_wait_queue", C::sched},
        {R::exact, "sock_def_readable", C::sched},
        {R::exact, "sock_def_write_space", C::sched},
        {R::exact, "sk_stream_write_space", C::sched},
        {R::prefix, "ep_poll", C::sched},
        {R::prefix, "pollwake", C::sched},
        {R::prefix, "__pollwait", C::sched},
        {R::prefix, "poll_freewait", C::sched},
        {R::prefix, "hrtimer_", C::sched},
        {R::prefix, "__hrtimer", C::sched},
        {R::prefix, "tick_", C::sched},
        {R::prefix, "timerqueue_", C::sched},
        {R::prefix, "lapic_next", C::sched},
        {R::prefix, "clockevents_", C::sched},
        {R::prefix, "update_process_times", C::sched},
        {R::prefix, "run_timer", C::sched},
        {R::prefix, "__run_timer", C::sched},
        {R::prefix, "mod_timer", C::sched},
        {R::prefix, "__mod_timer", C::sched},
        {R::prefix, "sk_reset_timer", C::sched},
        {R::prefix, "irq_work", C::sched},
        {R::prefix, "smp_call_function", C::sched},
        {R::prefix, "kthread", C::sched},

        // Kernel entry and exit: system calls, the socket layer's generic part, fd lookup, interrupt entry.
        {R::prefix, "entry_SYSCALL", C::syscall},
        {R::prefix, "do_syscall_", C::syscall},
        {R::prefix, "syscall_", C::syscall},
        {R::prefix, "x64_sys_call", C::syscall},
        {R::prefix, "exit_to_user_mode", C::syscall},
        {R::prefix, "__rseq_handle_notify_resume", C::syscall},  // restartable sequences' update on return to user
        {R::prefix, "rseq_handle_notify_resume", C::syscall},
        {R::prefix, "__x64_sys_", C::syscall},
        {R::prefix, "__ia32_sys_", C::syscall},
        {R::prefix, "__do_sys_", C::syscall},
        {R::prefix, "__se_sys_", C::syscall},
        {R::prefix, "__sys_", C::syscall},
        {R::prefix, "___sys_", C::syscall},
        {R::prefix, "____sys_", C::syscall},
        {R::prefix, "ksys_", C::syscall},
        {R::prefix, "sock_sendmsg", C::syscall},
        {R::prefix, "__sock_sendmsg", C::syscall},
        {R::prefix, "sock_recvmsg", C::syscall},
        {R::prefix, "sock_read_iter", C::syscall},
        {R::prefix, "sock_write_iter", C::syscall},
        {R::prefix, "security_socket_", C::syscall},
        {R::prefix, "apparmor_socket", C::syscall},
        {R::prefix, "selinux_socket", C::syscall},
        {R::prefix, "bpf_lsm_socket", C::syscall},
        {R::prefix, "import_iovec", C::syscall},
        {R::prefix, "__import_iovec", C::syscall},
        {R::prefix, "import_ubuf", C::syscall},
        {R::prefix, "copy_msghdr", C::syscall},
        {R::prefix, "__copy_msghdr", C::syscall},
        {R::prefix, "sendmsg_copy_msghdr", C::syscall},
        {R::prefix, "recvmsg_copy_msghdr", C::syscall},
        {R::prefix, "move_addr_to", C::syscall},
        {R::prefix, "sockfd_lookup", C::syscall},
        {R::prefix, "__fdget", C::syscall},
        {R::prefix, "fdget", C::syscall},
        {R::prefix, "__fget", C::syscall},
        {R::exact, "fput", C::syscall},
        {R::prefix, "do_sendfile", C::syscall},
        {R::prefix, "do_splice", C::syscall},
        {R::prefix, "splice_", C::syscall},
        {R::prefix, "do_sys_poll", C::syscall},
        {R::prefix, "do_poll", C::syscall},
        {R::prefix, "do_epoll", C::syscall},
        {R::prefix, "io_uring", C::syscall},
        {R::prefix, "__io_uring", C::syscall},
        {R::prefix, "io_submit_sqe", C::syscall},
        {R::prefix, "io_issue_sqe", C::syscall},
        {R::prefix, "io_req_", C::syscall},
        {R::prefix, "__io_req", C::syscall},
        {R::prefix, "io_cqring", C::syscall},
        {R::prefix, "io_fill_cqe", C::syscall},
        {R::prefix, "__io_submit", C::syscall},
        {R::prefix, "__io_run", C::syscall},
        {R::prefix, "io_run_task_work", C::syscall},
        // The task's deferred work on its way back to user space (io_uring's completions run in it): in the
        // lab's 6.1 guests 53 of a tcp-uringzc sender's samples landed on its IRQ-enabling unlock.
        {R::exact, "task_work_run", C::syscall},
        {R::prefix, "irqentry_", C::syscall},
        {R::prefix, "error_entry", C::syscall},
        {R::prefix, "restore_regs_and_return", C::syscall},
        {R::prefix, "clear_bhb_loop", C::syscall},
        {R::prefix, "asm_common_interrupt", C::syscall},
        {R::prefix, "common_interrupt", C::syscall},
        {R::prefix, "asm_sysvec_", C::syscall},
        {R::prefix, "sysvec_", C::syscall},
        {R::prefix, "__sysvec_", C::syscall},
        {R::prefix, "irq_exit", C::syscall},
        {R::prefix, "__irq_exit", C::syscall},
        {R::prefix, "irq_enter", C::syscall},
        {R::prefix, "handle_softirqs", C::syscall},
        {R::prefix, "tasklet_", C::syscall},  // softirq machinery, as handle_softirqs (rxe runs in tasklets)
        {R::prefix, "__tasklet_", C::syscall},
        {R::prefix, "__do_softirq", C::syscall},
        {R::prefix, "do_softirq", C::syscall},
        {R::prefix, "run_ksoftirqd", C::syscall},
        {R::prefix, "handle_irq", C::syscall},
        {R::prefix, "handle_edge_irq", C::syscall},
        {R::prefix, "handle_fasteoi_irq", C::syscall},
        {R::prefix, "__handle_irq", C::syscall},
        {R::prefix, "__common_interrupt", C::syscall},

        // SMC (AF_SMC, net/smc): its CDC messages, the RMBs' cursors, the link groups' and CLC's work. The copies
        // into and out of the RMBs are the copy functions they call (data copy), the RDMA writes they post the
        // provider's (RDMA), so smc against tcp shows where the us/KB moved.
        {R::prefix, "smc_", C::smc},
        {R::prefix, "__smc_", C::smc},
        {R::module, "smc", C::smc},
        {R::module, "smc_diag", C::smc},
        // RDMA: providers (rxe, siw, mlx5_ib ...) and the verbs core, before the drivers' own prefixes.
        {R::prefix, "rxe_", C::rdma},
        {R::exact, "req_next_wqe", C::rdma},  // rxe's own functions without its prefix (6.1)
        {R::exact, "lookup_mr", C::rdma},
        {R::exact, "mr_check_range", C::rdma},
        {R::prefix, "__rxe", C::rdma},
        {R::prefix, "siw_", C::rdma},
        {R::prefix, "mlx5_ib_", C::rdma},
        {R::prefix, "mlx4_ib_", C::rdma},
        {R::prefix, "ib_", C::rdma},
        {R::prefix, "__ib_", C::rdma},
        {R::prefix, "rdma_", C::rdma},
        {R::prefix, "rvt_", C::rdma},
        {R::prefix, "irdma_", C::rdma},
        {R::prefix, "bnxt_re_", C::rdma},
        {R::prefix, "efa_", C::rdma},
        {R::prefix, "ucma_", C::rdma},
        {R::prefix, "uverbs_", C::rdma},
        {R::prefix, "hfi1_", C::rdma},

        // Memory: pages and slabs, socket memory accounting, page pinning, page faults, IOMMU.
        {R::prefix, "__alloc_pages", C::memory},
        {R::prefix, "alloc_pages", C::memory},
        {R::prefix, "__alloc_frozen_pages", C::memory},
        {R::prefix, "get_page_from_freelist", C::memory},
        {R::prefix, "rmqueue", C::memory},
        {R::prefix, "__rmqueue", C::memory},
        {R::prefix, "free_unref_", C::memory},
        {R::prefix, "free_pcppages", C::memory},
        {R::prefix, "free_pcp_prepare", C::memory},
        {R::prefix, "should_fail", C::memory},  // should_failslab, should_fail_alloc_page: the allocators' hooks
        {R::prefix, "cache_from_obj", C::memory},
        {R::prefix, "cmpxchg_double_slab", C::memory},
        {R::prefix, "free_frozen_pages", C::memory},
        {R::prefix, "__free_frozen_pages", C::memory},  // 6.15+: mm/page_alloc.c, no Debian kernel of ours has it
        {R::prefix, "__free_pages", C::memory},
        {R::prefix, "free_pages", C::memory},
        {R::prefix, "__free_one_page", C::memory},
        {R::prefix, "put_page", C::memory},
        {R::prefix, "__put_page", C::memory},
        {R::prefix, "folio_", C::memory},
        {R::prefix, "__folio", C::memory},
        {R::prefix, "page_frag_", C::memory},
        {R::prefix, "__page_frag", C::memory},
        {R::prefix, "sk_page_frag", C::memory},
        {R::prefix, "skb_page_frag_refill", C::memory},
        {R::prefix, "kmem_cache_", C::memory},
        {R::prefix, "__kmem_cache", C::memory},
        {R::prefix, "kmalloc", C::memory},
        {R::prefix, "__kmalloc", C::memory},
        {R::exact, "kfree", C::memory},
        {R::prefix, "kvfree", C::memory},
        {R::prefix, "kvmalloc", C::memory},
        {R::prefix, "__kvmalloc", C::memory},
        {R::prefix, "slab_", C::memory},
        {R::prefix, "__slab", C::memory},
        {R::prefix, "___slab", C::memory},
        {R::prefix, "new_slab", C::memory},
        {R::prefix, "allocate_slab", C::memory},
        {R::prefix, "__sk_mem_", C::memory},
        {R::prefix, "sk_mem_", C::memory},
        {R::prefix, "sk_forced_mem_schedule", C::memory},
        {R::prefix, "__sk_mem", C::memory},
        {R::prefix, "tcp_wmem_schedule", C::memory},
        {R::prefix, "mem_cgroup_", C::memory},
        {R::prefix, "__mem_cgroup", C::memory},
        {R::prefix, "memcg_", C::memory},
        {R::prefix, "__memcg", C::memory},
        {R::prefix, "mod_memcg", C::memory},
        {R::prefix, "__mod_memcg", C::memory},
        {R::prefix, "__mod_lruvec", C::memory},
        {R::prefix, "mod_lruvec", C::memory},
        {R::prefix, "refill_stock", C::memory},
        {R::prefix, "obj_cgroup", C::memory},
        {R::prefix, "page_counter_", C::memory},
        {R::prefix, "try_charge", C::memory},
        {R::prefix, "percpu_counter_", C::memory},
        {R::prefix, "pin_user_pages", C::memory},
        {R::prefix, "unpin_user_page", C::memory},
        {R::prefix, "__get_user_pages", C::memory},
        {R::prefix, "get_user_pages", C::memory},
        {R::prefix, "internal_get_user_pages", C::memory},
        {R::prefix, "gup_", C::memory},
        {R::prefix, "__gup_", C::memory},
        {R::prefix, "try_grab_", C::memory},
        {R::prefix, "follow_page", C::memory},
        {R::prefix, "iov_iter_get_pages", C::memory},
        {R::prefix, "__iov_iter_get_pages", C::memory},
        {R::prefix, "iov_iter_extract", C::memory},
        {R::prefix, "exc_page_fault", C::memory},
        {R::prefix, "asm_exc_page_fault", C::memory},
        {R::prefix, "handle_mm_fault", C::memory},
        {R::prefix, "__handle_mm_fault", C::memory},
        {R::prefix, "do_user_addr_fault", C::memory},
        {R::prefix, "do_anonymous_page", C::memory},
        {R::prefix, "clear_page", C::memory},
        {R::prefix, "iommu_", C::memory},
        {R::prefix, "__iommu", C::memory},
        {R::prefix, "intel_iommu", C::memory},
        {R::prefix, "amd_iommu", C::memory},
        {R::prefix, "vm_insert_page", C::memory},
        {R::prefix, "zap_", C::memory},
        {R::prefix, "unmap_page_range", C::memory},
        {R::prefix, "tlb_", C::memory},
        {R::prefix, "flush_tlb", C::memory},
        {R::prefix, "native_flush_tlb", C::memory},
        {R::prefix, "lru_", C::memory},
        {R::prefix, "release_pages", C::memory},
        {R::prefix, "__page_cache_release", C::memory},
        {R::prefix, "find_vma", C::memory},
        {R::prefix, "mas_", C::memory},
        {R::prefix, "mt_find", C::memory},
        {R::prefix, "pte_", C::memory},
        {R::prefix, "__pte", C::memory},
        {R::prefix, "set_pte", C::memory},
        {R::prefix, "pmd_", C::memory},
        {R::prefix, "handle_pte_fault", C::memory},
        {R::prefix, "do_wp_page", C::memory},
        {R::prefix, "wp_page", C::memory},
        {R::prefix, "copy_page_range", C::memory},
        {R::prefix, "copy_pte", C::memory},
        {R::prefix, "vm_normal_page", C::memory},
        {R::prefix, "page_vma_mapped", C::memory},
        {R::prefix, "folio_add", C::memory},
        {R::prefix, "lruvec", C::memory},
        {R::prefix, "__lruvec", C::memory},
        {R::prefix, "count_memcg", C::memory},
        {R::prefix, "memcg1_", C::memory},
        {R::prefix, "uncharge_", C::memory},
        {R::prefix, "free_pages_and_swap", C::memory},
        {R::prefix, "damon_", C::memory},
        {R::prefix, "filemap_", C::memory},
        {R::prefix, "next_uptodate", C::memory},
        {R::prefix, "do_fault", C::memory},
        {R::prefix, "__do_fault", C::memory},
        {R::prefix, "do_read_fault", C::memory},
        {R::prefix, "do_cow_fault", C::memory},
        {R::prefix, "vmf_", C::memory},
        {R::prefix, "vma_", C::memory},
        {R::prefix, "get_vma_policy", C::memory},
        {R::prefix, "do_mmap", C::memory},
        {R::prefix, "__mmap", C::memory},
        {R::prefix, "mmap_region", C::memory},
        {R::prefix, "unmap_", C::memory},
        {R::prefix, "mod_node_page", C::memory},
        {R::prefix, "__mod_node_page", C::memory},
        {R::prefix, "__mod_zone_page", C::memory},
        {R::prefix, "page_remove_rmap", C::memory},
        {R::prefix, "__folio_mod_stat", C::memory},
        {R::prefix, "rmap_", C::memory},
        {R::prefix, "anon_vma", C::memory},
        {R::prefix, "get_mem_cgroup", C::memory},
        {R::prefix, "find_lock_entries", C::memory},

        // GRO and GSO before TCP/IP and UDP/IP: they are netdev work however they are named.
        {R::contains, "_gro_", C::netdev},
        {R::prefix, "gro_", C::netdev},
        {R::prefix, "__gro", C::netdev},
        {R::contains, "_gso_", C::netdev},
        {R::prefix, "gso_", C::netdev},
        {R::prefix, "skb_segment", C::netdev},
        {R::prefix, "skb_gso", C::netdev},
        {R::prefix, "__skb_gso", C::netdev},

        // skb management.
        {R::prefix, "skb_", C::skb},
        {R::prefix, "__skb", C::skb},
        {R::prefix, "kfree_skb", C::skb},
        {R::prefix, "__kfree_skb", C::skb},
        {R::prefix, "sk_skb_reason_drop", C::skb},
        {R::prefix, "consume_skb", C::skb},
        {R::prefix, "__consume_stateless_skb", C::skb},
        {R::prefix, "alloc_skb", C::skb},
        {R::prefix, "__alloc_skb", C::skb},
        {R::prefix, "napi_alloc_skb", C::skb},
        {R::prefix, "__napi_alloc_skb", C::skb},
        {R::prefix, "napi_consume_skb", C::skb},
        {R::prefix, "napi_skb_cache", C::skb},
        {R::prefix, "napi_build_skb", C::skb},
        {R::prefix, "__napi_build_skb", C::skb},
        {R::prefix, "napi_pp_put_page", C::skb},
        {R::prefix, "build_skb", C::skb},
        {R::prefix, "__build_skb", C::skb},
        {R::prefix, "pskb_", C::skb},
        {R::prefix, "__pskb", C::skb},
        {R::prefix, "kfree_skbmem", C::skb},
        {R::prefix, "__copy_skb_header", C::skb},
        {R::prefix, "tcp_stream_alloc_skb", C::skb},
        {R::prefix, "sk_stream_alloc_skb", C::skb},
        {R::prefix, "alloc_skb_with_frags", C::skb},
        {R::prefix, "sock_alloc_send", C::skb},
        {R::prefix, "page_pool_", C::memory},  // page_pool recycles pages: the page allocator's work
        {R::prefix, "__page_pool", C::memory},

        // UDP/IP, then TCP/IP (with IP, the socket's protocol side, routing, netfilter).
        {R::prefix, "udp", C::udp},
        {R::prefix, "__udp", C::udp},
        {R::prefix, "udpv6", C::udp},
        {R::prefix, "tcp", C::tcp},
        {R::prefix, "cubictcp_", C::tcp},  // congestion control
        {R::prefix, "__tcp", C::tcp},
        {R::prefix, "ip_", C::tcp},
        {R::prefix, "__ip_", C::tcp},
        {R::prefix, "ipv4_", C::tcp},
        {R::prefix, "ip6_", C::tcp},
        {R::prefix, "__ip6", C::tcp},
        {R::prefix, "ipv6_", C::tcp},
        {R::prefix, "inet", C::tcp},
        {R::prefix, "__inet", C::tcp},
        {R::prefix, "sk_", C::tcp},
        {R::prefix, "__sk_", C::tcp},
        {R::prefix, "sock_", C::tcp},
        {R::prefix, "__sock_", C::tcp},
        {R::prefix, "raw_local_deliver", C::tcp},
        {R::prefix, "raw_v4_input", C::tcp},
        {R::prefix, "fib_", C::tcp},
        {R::prefix, "__fib", C::tcp},
        {R::prefix, "dst_", C::tcp},
        {R::prefix, "rt_", C::tcp},
        {R::prefix, "nf_", C::tcp},
        {R::prefix, "__nf_", C::tcp},
        {R::prefix, "nft_", C::tcp},
        {R::prefix, "ipt_", C::tcp},
        {R::prefix, "security_sock_rcv_skb", C::tcp},
        {R::prefix, "sk_filter", C::tcp},
        {R::prefix, "secure_tcp", C::tcp},
        {R::prefix, "bpf_skops", C::tcp},

        // netdev: drivers, NAPI, the device queue and qdiscs, RPS, DMA mapping, loopback, veth, XDP.
        {R::prefix, "net_rx_action", C::netdev},
        {R::prefix, "net_tx_action", C::netdev},
        {R::prefix, "napi_", C::netdev},
        {R::prefix, "__napi", C::netdev},
        {R::prefix, "netif_", C::netdev},
        {R::prefix, "__netif", C::netdev},
        {R::prefix, "netdev_", C::netdev},
        {R::prefix, "__netdev", C::netdev},
        {R::prefix, "dev_", C::netdev},
        {R::prefix, "__dev_", C::netdev},
        {R::prefix, "validate_xmit", C::netdev},
        {R::prefix, "qdisc", C::netdev},
        {R::prefix, "__qdisc", C::netdev},
        {R::prefix, "sch_", C::netdev},
        {R::prefix, "pfifo_", C::netdev},
        {R::prefix, "fq_", C::netdev},
        {R::prefix, "rps_", C::netdev},
        {R::exact, "enqueue_to_backlog", C::netdev},  // not the scheduler's enqueue_
        {R::prefix, "process_backlog", C::netdev},
        {R::prefix, "eth_", C::netdev},
        {R::prefix, "loopback_", C::netdev},
        {R::prefix, "dma_", C::netdev},
        {R::prefix, "__dma_", C::netdev},
        {R::prefix, "dma_direct", C::netdev},
        {R::prefix, "swiotlb", C::netdev},
        {R::prefix, "virtnet_", C::netdev},
        {R::prefix, "virtqueue_", C::netdev},
        {R::prefix, "vring_", C::netdev},
        {R::prefix, "vp_notify", C::netdev},
        {R::exact, "page_to_skb", C::netdev},  // virtio-net's receive: its buffers into an skb
        {R::prefix, "detach_buf", C::netdev},  // virtio's ring
        {R::prefix, "start_xmit", C::netdev},
        {R::prefix, "free_old_xmit", C::netdev},
        {R::prefix, "receive_buf", C::netdev},
        {R::prefix, "receive_mergeable", C::netdev},
        {R::prefix, "try_fill_recv", C::netdev},
        {R::exact, "skb_recv_done", C::netdev},  // virtio-net callbacks, not skb management
        {R::exact, "skb_xmit_done", C::netdev},
        {R::prefix, "vring_interrupt", C::netdev},
        {R::prefix, "mlx5e_", C::netdev},
        {R::prefix, "mlx5_", C::netdev},
        {R::prefix, "mlx4_en_", C::netdev},
        {R::prefix, "ixgbe_", C::netdev},
        {R::prefix, "i40e_", C::netdev},
        {R::prefix, "ice_", C::netdev},
        {R::prefix, "bnxt_", C::netdev},
        {R::prefix, "ena_", C::netdev},
        {R::prefix, "gve_", C::netdev},
        {R::prefix, "igb_", C::netdev},
        {R::prefix, "e1000", C::netdev},
        {R::prefix, "veth_", C::netdev},
        {R::prefix, "__veth", C::netdev},
        {R::prefix, "tun_", C::netdev},
        {R::prefix, "br_", C::netdev},
        {R::prefix, "xdp_", C::netdev},
        {R::prefix, "bpf_prog_run_generic_xdp", C::netdev},
        {R::prefix, "do_xdp_generic", C::netdev},
        {R::prefix, "neigh_", C::netdev},
        {R::prefix, "__neigh", C::netdev},

        // Names of older kernels (5.4: the SIGCOMM'21 study's profiles, tests/unit/test_explain_study.cpp)
        // that no Debian kernel's DWARF has any more (renamed, inlined, or section labels), and helpers
        // whose time is their caller's.
        {R::exact, "__lock_text_start", C::lock},  // the first function of .spinlock.text, as perf names it
        {R::exact, "__sched_text_start", C::sched},
        {R::exact, "__softirqentry_text_start", C::syscall},
        {R::exact, "interrupt_entry", C::syscall},
        {R::exact, "_cond_resched", C::sched},
        {R::exact, "update_nohz_stats", C::sched},
        {R::exact, "__inc_numa_state", C::memory},
        {R::exact, "kernel_init_free_pages", C::memory},
        {R::exact, "prep_new_page", C::memory},
        {R::exact, "unfreeze_partials", C::memory},
        {R::exact, "skb_network_protocol", C::netdev},       // the device's offloads (GSO, features), not the skb's
        {R::exact, "__cgroup_bpf_run_filter_skb", C::tcp},   // a cgroup's socket filter, as sk_filter_trim_cap
        {R::exact, "apparmor_socket_sock_rcv_skb", C::tcp},  // the receive path's LSM hook, as security_sock_rcv_skb
        {R::exact, "selinux_socket_sock_rcv_skb", C::tcp},
        {R::prefix, "apparmor_ip", C::tcp},  // LSM netfilter hooks: apparmor_ipv4_postroute, apparmor_ip_postroute
        {R::prefix, "iptable_", C::tcp},
        {R::prefix, "ip6table_", C::tcp},
        {R::prefix, "__xfrm_policy_check", C::tcp},
        {R::prefix, "copy_folio_from_iter", C::copy},  // 6.18's name: lib/iov_iter.c
        {R::prefix, "___pte_offset_map", C::memory},
        {R::exact, "free_frozen_page_commit", C::memory},  // 6.18: mm/page_alloc.c
        {R::prefix, "__get_pfnblock_flags", C::memory},
        {R::exact, "get_netmem", C::skb},  // 6.18: a reference on an skb frag's page (netmem)
        {R::exact, "put_netmem", C::skb},
        {R::prefix, "iowrite", C::inherit},  // MMIO/port writes: virtio's notify (vp_notify), a driver's doorbell
        {R::prefix, "ioread", C::inherit},
        {R::prefix, "_find_first_", C::inherit},  // lib/find_bit.c: a bitmap walk, its caller's
        {R::prefix, "_find_next_", C::inherit},
        {R::exact, "memcmp", C::inherit},    // GRO's and conntrack's header compares: their caller's
        {R::exact, "rb_erase", C::inherit},  // lib/rbtree.c: TCP's retransmit queue, the scheduler's tree...
        {R::exact, "rb_first", C::inherit},
        {R::exact, "rb_last", C::inherit},
        {R::exact, "rb_next", C::inherit},
        {R::exact, "rb_prev", C::inherit},
        {R::exact, "rb_insert_color", C::inherit},
        {R::exact, "__rb_insert_augmented", C::inherit},
        {R::exact, "rb_erase_cached", C::inherit},
        {R::exact, "rb_insert_color_cached", C::inherit},

        // Modules, for a function no name rule names: aesni's assembly labels (kallsyms lists aesni_intel's
        // GCM loop labels, _encrypt_by_8_new15047, _initial_blocks_done102 ..., as if functions, and a sample
        // in the loop lands on one), the gcm and chacha20poly1305 templates' helpers (crypto_rfc4543_encrypt,
        // poly_cipher). The other crypto modules' names are all named by the rules above; kTLS's two
        // helpers without its prefixes are named here (its module's name is also a transport's, and a
        // transport's name stays in its own files).
        // BPF programs and kprobes that something attached to the path (fentry/kprobe tracers, a host's
        // monitoring, cgroup filters): work the host added to the path's functions, named apart so that it
        // neither swells their category nor hides in other kernel. JIT'd programs are "bpf_prog_TAG_NAME
        // [bpf]" in kallsyms (the XDP runner and the cgroup hook above keep their own categories); the
        // trampolines call __bpf_prog_enter/exit; the rest are the helpers tracers call.
        {R::prefix, "__bpf_prog_enter", C::bpf},
        {R::prefix, "__bpf_prog_exit", C::bpf},
        {R::prefix, "bpf_trampoline_", C::bpf},
        {R::prefix, "bpf_probe_read", C::bpf},
        {R::prefix, "bpf_get_current_", C::bpf},
        {R::prefix, "bpf_ktime_get", C::bpf},
        {R::prefix, "bpf_perf_event_output", C::bpf},
        {R::prefix, "bpf_ringbuf_", C::bpf},
        {R::prefix, "bpf_trace_", C::bpf},
        {R::exact, "trace_call_bpf", C::bpf},
        {R::prefix, "kprobe_", C::bpf},
        {R::prefix, "__kprobe", C::bpf},
        {R::prefix, "kretprobe_", C::bpf},
        {R::prefix, "bpf_prog_", C::bpf},
        {R::module, "bpf", C::bpf},
        {R::module, "aesni_intel", C::crypto},
        {R::module, "gcm", C::crypto},
        {R::module, "chacha20poly1305", C::crypto},
        {R::exact, "process_rx_list", C::crypto},  // kTLS: the decrypted records' list, to the reader
        {R::exact, "tx_work_handler", C::crypto},  // kTLS: the deferred record push
    };
    return rules;
}

// "tcp_sendmsg.isra.0 [mod]" -> "tcp_sendmsg": the compiler's clones are the same function for the table.
std::string_view base_name(std::string_view name) {
    size_t end = name.find_first_of(". ");
    return end == std::string_view::npos || end == 0 ? name : name.substr(0, end);
}

// "virtnet_poll [virtio_net]" -> "virtio_net"; "" for a name without its module.
std::string_view module_of(std::string_view name) {
    size_t open = name.find(" [");
    if (open == std::string_view::npos || name.back() != ']') return {};
    return name.substr(open + 2, name.size() - open - 3);
}

struct Index {
    std::unordered_map<std::string_view, const CategoryRule*> exact;
    std::unordered_map<std::string_view, const CategoryRule*> modules;
    std::vector<const CategoryRule*> ordered;  // prefix and contains rules, in table order
};

const Index& index() {
    static const Index idx = [] {
        Index i;
        for (const auto& r : table()) {
            if (r.kind == R::exact)
                i.exact.emplace(r.pattern, &r);  // the first exact rule for a name wins
            else if (r.kind == R::module)
                i.modules.emplace(r.pattern, &r);
            else
                i.ordered.push_back(&r);
        }
        return i;
    }();
    return idx;
}

}  // namespace

const std::array<CategoryName, kCategoryCount>& category_names() {
    static const std::array<CategoryName, kCategoryCount> names = {{
        {"copy", "data copy"},
        {"checksum", "checksum"},
        {"crypto", "crypto/kTLS"},
        {"tcp", "TCP/IP"},
        {"udp", "UDP/IP"},
        {"netdev", "netdev"},
        {"skb", "skb"},
        {"memory", "memory"},
        {"zerocopy", "zero-copy bookkeeping"},
        {"lock", "locks/RCU"},
        {"sched", "scheduling/wake-ups"},
        {"syscall", "syscall/IRQ entry"},
        {"rdma", "RDMA"},
        {"smc", "SMC (CDC, RMB)"},
        {"bpf", "BPF programs/probes"},
        {"user", "zcperf user"},
        {"user_crypto", "zcperf user: libcrypto"},
        {"other_process", "other processes"},
        {"other", "other kernel"},
        {"unknown", "unknown"},
    }};
    return names;
}

const char* category_key(Category c) {
    return c < Category::count_  ? category_names()[static_cast<size_t>(c)].key
           : c == Category::idle ? "idle"
                                 : "inherit";
}
const char* category_label(Category c) {
    return c < Category::count_ ? category_names()[static_cast<size_t>(c)].label : category_key(c);
}

namespace {
// The hand table's name rules: exact names, then prefixes and substrings in order.
const CategoryRule* name_rule_of(std::string_view name) {
    const Index& idx = index();
    if (auto it = idx.exact.find(name); it != idx.exact.end()) return it->second;
    for (const CategoryRule* r : idx.ordered) {
        bool hit = r->kind == R::prefix ? name.substr(0, r->pattern.size()) == r->pattern
                                        : name.find(r->pattern) != std::string_view::npos;
        if (hit) return r;
    }
    return nullptr;
}

const CategoryRule* module_rule_of(std::string_view name_and_module) {
    const Index& idx = index();
    auto it = idx.modules.find(module_of(name_and_module));
    return it == idx.modules.end() ? nullptr : it->second;
}
}  // namespace

const CategoryRule* rule_of_function(std::string_view name_and_module) {
    if (const CategoryRule* r = name_rule_of(base_name(name_and_module))) return r;
    return module_rule_of(name_and_module);
}

Classification classify_function(std::string_view name_and_module) {
    const std::string_view name = base_name(name_and_module);
    Classification c;
    if ((c.rule = name_rule_of(name)) != nullptr) {
        c.category = c.rule->category;
    } else if (SourceDecision d; source_decision(name, d)) {
        c.category = d.category;
        c.source = d.rule;
        c.file = d.file;
    } else if ((c.rule = module_rule_of(name_and_module)) != nullptr) {
        c.category = c.rule->category;
    }
    return c;
}

Category category_of_function(std::string_view name_and_module) { return classify_function(name_and_module).category; }

Category attribute_chain(const std::vector<std::string_view>& leaf_first) {
    for (std::string_view f : leaf_first) {
        Category c = category_of_function(f);
        if (c != Category::inherit) return c;
    }
    return Category::other;
}

bool is_interrupt_entry(std::string_view name) {
    name = base_name(name);
    static constexpr std::string_view kEntries[] = {"handle_softirqs",  "__do_softirq",         "do_softirq",
                                                    "irq_exit_rcu",     "__irq_exit_rcu",       "irq_exit",
                                                    "common_interrupt", "asm_common_interrupt", "__common_interrupt",
                                                    "handle_irq_event", "run_ksoftirqd"};
    for (std::string_view e : kEntries)
        if (name == e) return true;
    return name.substr(0, 7) == "sysvec_" || name.substr(0, 11) == "asm_sysvec_";
}

const std::vector<CategoryRule>& category_rules() { return table(); }

}  // namespace zc
