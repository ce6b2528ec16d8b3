// --explain's pure logic: the category table on real kernel symbol names (5.10, 6.1, 6.18; virtio-net,
// mlx5, rxe), /proc/kallsyms parsing and lookup on fixtures, and the summary of counted samples.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "explain/categories.hpp"
#include "explain/kallsyms.hpp"
#include "explain/side_explainer.hpp"
#include "explain/sampler.hpp"
#include "measure/cpuidle.hpp"
#include "protocol/explain_json.hpp"

using namespace zc;

namespace {
const std::string kFixtures = ZCPERF_FIXTURES;

struct Case {
    const char* symbol;
    Category category;
};
}  // namespace

TEST(ExplainCategories, RealSymbolNames) {
    const Case cases[] = {
        // data copy: 5.10's and 6.x's user copies, iov_iter, skb copies
        {"copy_user_enhanced_fast_string", Category::copy},
        {"copy_user_generic_unrolled", Category::copy},
        {"rep_movs_alternative", Category::copy},
        {"_copy_to_iter", Category::copy},
        {"_copy_from_iter", Category::copy},
        {"copy_page_to_iter", Category::copy},
        {"skb_copy_datagram_iter", Category::copy},
        {"__skb_datagram_iter", Category::copy},
        {"memcpy_orig", Category::copy},
        {"memcpy", Category::copy},
        {"__check_object_size", Category::copy},
        {"csum_partial_copy_generic", Category::copy},
        // checksum
        {"csum_partial", Category::checksum},
        {"do_csum", Category::checksum},
        {"__skb_checksum", Category::checksum},
        {"csum_ipv6_magic", Category::checksum},
        // TCP/IP, UDP/IP
        {"tcp_sendmsg_locked", Category::tcp},
        {"tcp_sendmsg", Category::tcp},
        {"tcp_v4_rcv", Category::tcp},
        {"tcp_ack", Category::tcp},
        {"__tcp_transmit_skb", Category::tcp},
        {"tcp_recvmsg_locked", Category::tcp},
        {"ip_finish_output2", Category::tcp},
        {"__ip_queue_xmit", Category::tcp},
        {"ip_rcv_core", Category::tcp},
        {"inet_recvmsg", Category::tcp},
        {"nf_hook_slow", Category::tcp},
        {"tcp_rcv_established.isra.0", Category::tcp},
        {"udp_sendmsg", Category::udp},
        {"__udp4_lib_rcv", Category::udp},
        {"udpv6_sendmsg", Category::udp},
        // netdev: device queue, NAPI, GRO/GSO, drivers, DMA mapping
        {"__dev_queue_xmit", Category::netdev},
        {"dev_hard_start_xmit", Category::netdev},
        {"net_rx_action", Category::netdev},
        {"__napi_poll", Category::netdev},
        {"__netif_receive_skb_core", Category::netdev},
        {"virtnet_poll", Category::netdev},
        {"virtqueue_add_outbuf", Category::netdev},
        {"start_xmit", Category::netdev},
        {"mlx5e_napi_poll", Category::netdev},
        {"mlx5e_xmit", Category::netdev},
        {"loopback_xmit", Category::netdev},
        {"tcp_gro_receive", Category::netdev},
        {"inet_gro_receive", Category::netdev},
        {"dev_gro_receive", Category::netdev},
        {"tcp_gso_segment", Category::netdev},
        {"skb_segment", Category::netdev},
        {"dma_map_page_attrs", Category::netdev},
        {"pfifo_fast_dequeue", Category::netdev},
        {"sch_direct_xmit", Category::netdev},
        // skb
        {"skb_release_data", Category::skb},
        {"__alloc_skb", Category::skb},
        {"kfree_skb_reason", Category::skb},
        {"consume_skb", Category::skb},
        {"skb_clone", Category::skb},
        {"tcp_stream_alloc_skb", Category::skb},
        {"napi_consume_skb", Category::skb},
        // memory: pages, slab, pinning, IOMMU, accounting
        {"__alloc_pages", Category::memory},
        {"get_page_from_freelist", Category::memory},
        {"free_unref_page", Category::memory},
        {"kmem_cache_alloc_node", Category::memory},
        {"__kmalloc_node_track_caller", Category::memory},
        {"kfree", Category::memory},
        {"pin_user_pages_fast", Category::memory},
        {"unpin_user_pages", Category::memory},
        {"iov_iter_get_pages2", Category::memory},
        {"iommu_dma_map_page", Category::memory},
        {"__sk_mem_raise_allocated", Category::memory},
        {"mem_cgroup_charge_skmem", Category::memory},
        {"folio_put", Category::memory},
        {"page_frag_alloc_align", Category::memory},
        // zero-copy bookkeeping
        {"__zerocopy_sg_from_iter", Category::zerocopy},
        {"sock_zerocopy_callback", Category::zerocopy},
        {"msg_zerocopy_complete", Category::zerocopy},
        {"msg_zerocopy_callback", Category::zerocopy},
        {"skb_zerocopy_iter_stream", Category::zerocopy},
        {"tcp_zerocopy_receive", Category::zerocopy},
        {"mm_account_pinned_pages", Category::zerocopy},
        {"sock_dequeue_err_skb", Category::zerocopy},
        {"ip_recv_error", Category::zerocopy},
        {"io_notif_complete_tw_ext", Category::zerocopy},
        {"io_send_zc", Category::zerocopy},
        // locks
        {"_raw_spin_lock", Category::lock},
        {"_raw_spin_lock_bh", Category::lock},
        {"native_queued_spin_lock_slowpath", Category::lock},
        {"__pv_queued_spin_lock_slowpath", Category::lock},
        {"lock_sock_nested", Category::lock},
        {"release_sock", Category::lock},
        {"mutex_lock", Category::lock},
        // scheduling and wake-ups
        {"try_to_wake_up", Category::sched},
        {"__schedule", Category::sched},
        {"schedule", Category::sched},
        {"__wake_up_common", Category::sched},
        {"sock_def_readable", Category::sched},
        {"enqueue_task_fair", Category::sched},
        {"finish_task_switch.isra.0", Category::sched},
        // the lab's guests (6.1, TCG, virtio-net): what their "other kernel" held before these rules
        {"update_blocked_averages", Category::sched},
        {"rebalance_domains", Category::sched},
        {"_nohz_idle_balance.isra.0", Category::sched},
        {"free_pcp_prepare", Category::memory},
        {"should_failslab", Category::memory},
        {"should_fail_alloc_page", Category::memory},
        {"cache_from_obj", Category::memory},
        {"cmpxchg_double_slab.constprop.0.isra.0", Category::memory},
        {"cubictcp_cong_avoid", Category::tcp},
        {"page_to_skb", Category::netdev},
        {"detach_buf_split", Category::netdev},
        {"amd_e400_idle", Category::idle},
        {"task_work_run", Category::syscall},
        {"sk_wait_data", Category::sched},
        {"update_curr", Category::sched},
        // syscall and interrupt entry
        {"entry_SYSCALL_64", Category::syscall},
        {"entry_SYSCALL_64_after_hwframe", Category::syscall},
        {"do_syscall_64", Category::syscall},
        {"syscall_exit_to_user_mode", Category::syscall},
        {"__x64_sys_sendto", Category::syscall},
        {"__sys_recvfrom", Category::syscall},
        {"sock_sendmsg", Category::syscall},
        {"__fget_light", Category::syscall},
        {"handle_softirqs", Category::syscall},
        {"__do_softirq", Category::syscall},
        {"asm_sysvec_apic_timer_interrupt", Category::syscall},
        // RDMA: rxe, siw, mlx5_ib, the verbs core (before the driver's mlx5_ prefix)
        {"rxe_requester", Category::rdma},
        {"rxe_responder", Category::rdma},
        {"rxe_completer", Category::rdma},
        {"siw_qp_sq_process", Category::rdma},
        {"mlx5_ib_post_send", Category::rdma},
        {"ib_uverbs_write", Category::rdma},
        // the RDMA guest (6.1, rxe): what its "other kernel" held (33-41 % of busy samples) before these rules
        {"req_next_wqe", Category::rdma},
        {"lookup_mr", Category::rdma},
        {"mr_check_range", Category::rdma},
        {"crc32_pclmul_le", Category::checksum},
        {"crc32_body", Category::checksum},
        {"crc32_le_base", Category::checksum},
        {"crc32c_pcl_intel_update", Category::checksum},
        {"tasklet_action_common.constprop.0", Category::syscall},
        {"__tasklet_schedule_common", Category::syscall},
        {"poll_freewait", Category::sched},
        {"loop_64", Category::inherit},
        {"less_64", Category::inherit},
        {"kernel_fpu_begin_mask", Category::inherit},
        {"save_fpregs_to_fpstate", Category::inherit},
        {"xa_load", Category::inherit},
        {"xas_descend", Category::inherit},
        {"ktime_get_ts64", Category::inherit},
        {"posix_get_monotonic_timespec", Category::inherit},
        // idle: never work
        {"default_idle", Category::idle},
        {"pv_native_safe_halt", Category::idle},
        {"intel_idle", Category::idle},
        {"acpi_idle_do_entry", Category::idle},
        {"poll_idle", Category::idle},
        {"cpuidle_enter_state", Category::idle},
        {"mwait_idle_with_hints.constprop.0", Category::idle},
        {"do_idle", Category::idle},
        // the caller's: thunks, IRQ-enable points, generic helpers
        {"__x86_return_thunk", Category::inherit},
        {"srso_return_thunk", Category::inherit},
        {"_raw_spin_unlock_irqrestore", Category::inherit},
        {"pvm_irq_enable", Category::inherit},
        {"__raw_callee_save_pvm_irq_enable", Category::inherit},
        {"__local_bh_enable_ip", Category::inherit},
        {"memset_orig", Category::inherit},
        {"read_hpet", Category::inherit},  // the clocksource of the lab's TCG guests (6.1)
        // no rule
        {"some_function_nobody_named", Category::other},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(category_key(category_of_function(c.symbol)), std::string(category_key(c.category))) << c.symbol;
    }
}

TEST(ExplainCategories, GenericLeavesTakeTheirCallersCategory) {
    // A sample held back while interrupts were off lands at the unlock that enables them: the work is the caller's.
    EXPECT_EQ(attribute_chain({"_raw_spin_unlock_irqrestore", "try_to_wake_up", "__wake_up_common"}), Category::sched);
    EXPECT_EQ(attribute_chain({"memset_orig", "__alloc_skb", "tcp_stream_alloc_skb"}), Category::skb);
    // a paravirtual guest delivers it where its IRQ-enable hypercall's thunk returns
    EXPECT_EQ(attribute_chain({"pvm_irq_enable", "__raw_callee_save_pvm_irq_enable", "_raw_spin_unlock_irqrestore",
                               "tcp_write_xmit"}),
              Category::tcp);
    EXPECT_EQ(attribute_chain({"__x86_return_thunk", "__local_bh_enable_ip", "tcp_sendmsg"}), Category::tcp);
    EXPECT_EQ(attribute_chain({"rep_movs_alternative", "_copy_from_iter", "tcp_sendmsg_locked"}), Category::copy);
    // crc32-pclmul's inner loop is a label kallsyms lists as a function: the work is crc32's, RoCE's ICRC
    EXPECT_EQ(attribute_chain({"loop_64", "crc32_pclmul_le", "crc32_pclmul_update", "rxe_crc32.isra.0"}),
              Category::checksum);
    // a TCG guest's clock_gettime is a real system call reading the HPET
    EXPECT_EQ(
        attribute_chain({"read_hpet", "ktime_get_ts64", "posix_get_monotonic_timespec", "__x64_sys_clock_gettime"}),
        Category::syscall);
    EXPECT_EQ(attribute_chain({"__x86_return_thunk"}), Category::other);
    EXPECT_EQ(attribute_chain({}), Category::other);
}

TEST(ExplainCategories, InterruptEntriesAreKnown) {
    EXPECT_TRUE(is_interrupt_entry("handle_softirqs"));
    EXPECT_TRUE(is_interrupt_entry("__do_softirq"));
    EXPECT_TRUE(is_interrupt_entry("sysvec_call_function_single"));
    EXPECT_TRUE(is_interrupt_entry("asm_common_interrupt"));
    EXPECT_FALSE(is_interrupt_entry("default_idle"));
    EXPECT_FALSE(is_interrupt_entry("tcp_v4_rcv"));
}

TEST(ExplainCategories, BpfProgramsAndProbesInThePathAreTheirOwnCategory) {
    // What a tracer attached to udp_send_skb left in a loopback udp run's samples (6.18), and a JIT'd
    // program as kallsyms names it: neither the path's category nor other kernel.
    EXPECT_EQ(category_of_function("__bpf_prog_enter_recur"), Category::bpf);
    EXPECT_EQ(category_of_function("__bpf_prog_exit_recur"), Category::bpf);
    EXPECT_EQ(category_of_function("bpf_probe_read_kernel"), Category::bpf);
    EXPECT_EQ(category_of_function("bpf_prog_6deef7357e7b4530_sd_fw_egress [bpf]"), Category::bpf);
    EXPECT_EQ(category_of_function("kprobe_ftrace_handler"), Category::bpf);
    // The hooks that run programs keep their own places in the path.
    EXPECT_EQ(category_of_function("bpf_prog_run_generic_xdp"), Category::netdev);
    EXPECT_EQ(category_of_function("__cgroup_bpf_run_filter_skb"), Category::tcp);
    EXPECT_STREQ(category_key(Category::bpf), "bpf");
    // SMC's own work is its category; the copies into and out of its RMBs stay copies, its RDMA writes RDMA
    EXPECT_EQ(category_of_function("smc_cdc_msg_send [smc]"), Category::smc);
    EXPECT_EQ(category_of_function("smc_tx_sndbuf_nonempty [smc]"), Category::smc);
    EXPECT_EQ(category_of_function("smc_rx_recvmsg"), Category::smc);
    EXPECT_EQ(category_of_function("rxe_post_send [rdma_rxe]"), Category::rdma);
    EXPECT_STREQ(category_key(Category::smc), "smc");
}

TEST(ExplainCategories, EveryRuleIsReachable) {
    // A rule hidden by one above it (same kind of match, earlier, broader) would be dead data: each
    // rule's own pattern must come out in its category (patterns of "contains" rules are names too).
    for (const auto& r : category_rules()) {
        std::string name(r.pattern);
        if (r.kind == CategoryRule::prefix && name.back() == '_') name += "x";
        if (r.kind == CategoryRule::module) name = "a_label_no_rule_names [" + name + "]";
        EXPECT_EQ(category_key(category_of_function(name)), std::string(category_key(r.category)))
            << "rule '" << r.pattern << "' is shadowed";
    }
}

namespace {
// A fixture of real kernel names: "CATEGORY NAME [MODULE]" a line, '#' comments.
std::vector<std::pair<std::string, std::string>> expected_categories(const std::string& file) {
    std::ifstream in(kFixtures + "/explain/" + file);
    EXPECT_TRUE(in.good()) << file;
    std::vector<std::pair<std::string, std::string>> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        size_t space = line.find(' ');
        out.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
    return out;
}

// Checks each name's category; returns the rules that decided them.
std::set<const CategoryRule*> check_names(const std::string& file) {
    std::set<const CategoryRule*> used;
    for (const auto& [want, name] : expected_categories(file)) {
        EXPECT_EQ(category_key(category_of_function(name)), want) << file << ": " << name;
        used.insert(rule_of_function(name));
    }
    return used;
}
}  // namespace

TEST(ExplainCrypto, EveryRuleOnRealNamesOfBothKernels) {
    const auto used61 = check_names("crypto_names_6.1.txt");
    const auto used618 = check_names("crypto_names_6.18.txt");
    EXPECT_GE(used61.size(), 40u);  // the files hold what they say: many names, many rules
    EXPECT_GE(used618.size(), 12u);
    // Every crypto rule (and the hash API's inherit rules) decides a real name: a rule no kernel name
    // reaches would be a guess. crypto_lskcipher_ is 6.18's (6.1 has no lskcipher).
    for (const auto& r : category_rules()) {
        const bool hash_glue = r.category == Category::inherit && r.pattern.find("hash_") != std::string_view::npos;
        if (r.category != Category::crypto && !hash_glue) continue;
        const bool only_618 = r.pattern == "crypto_lskcipher_";
        EXPECT_TRUE((only_618 ? used618 : used61).count(&r)) << "no real name decided by rule '" << r.pattern << "'";
    }
}

TEST(ExplainCrypto, KtlsEncryptionIsCryptoAndItsDataCopyIsCopy) {
    // Leaf first, as the sampler has them (6.1's kTLS over aesni, frames as kallsyms names them).
    // Sending: the encryption inside tls_sw_sendmsg is crypto, to the GCM loop's assembly label...
    EXPECT_EQ(attribute_chain({"_encrypt_by_8_new15047 [aesni_intel]", "gcmaes_crypt_by_sg [aesni_intel]",
                               "gcmaes_encrypt [aesni_intel]", "generic_gcmaes_encrypt [aesni_intel]",
                               "crypto_aead_encrypt", "simd_aead_encrypt [crypto_simd]", "crypto_aead_encrypt",
                               "tls_push_record [tls]", "bpf_exec_tx_verdict [tls]", "tls_sw_sendmsg [tls]",
                               "inet_sendmsg", "sock_sendmsg", "__sys_sendto"}),
              Category::crypto);
    // ... and the FPU's save around it is the encryption's
    EXPECT_EQ(attribute_chain({"kernel_fpu_begin_mask", "gcmaes_crypt_by_sg [aesni_intel]", "tls_push_record [tls]"}),
              Category::crypto);
    // while the copy of the user's data into kTLS's plaintext buffer is a data copy
    EXPECT_EQ(attribute_chain({"copy_user_enhanced_fast_string", "_copy_from_iter", "sk_msg_memcopy_from_iter",
                               "tls_sw_sendmsg [tls]", "inet_sendmsg", "sock_sendmsg"}),
              Category::copy);
    // Receiving: decryption into the user's buffer is crypto; a copy of an already decrypted record is copy.
    EXPECT_EQ(attribute_chain({"aesni_gcm_dec_update_avx_gen4 [aesni_intel]", "gcmaes_crypt_by_sg [aesni_intel]",
                               "crypto_aead_decrypt", "tls_decrypt_sg [tls]", "tls_rx_one_record [tls]",
                               "tls_sw_recvmsg [tls]", "inet_recvmsg"}),
              Category::crypto);
    EXPECT_EQ(attribute_chain({"copy_user_enhanced_fast_string", "_copy_to_iter", "simple_copy_to_iter",
                               "__skb_datagram_iter", "skb_copy_datagram_iter", "process_rx_list [tls]",
                               "tls_sw_recvmsg [tls]"}),
              Category::copy);
    // without its module a label is no function anyone named: the module is what makes it crypto
    EXPECT_EQ(category_of_function("_encrypt_by_8_new15047"), Category::other);
}

TEST(ExplainCrypto, SummaryNamesTheModuleOfALabel) {
    // The sampler's chain resolved through kallsyms: the leaf is aesni's GCM loop label in its module.
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_6.1_ktls.txt");
    SampleTotals t;
    const std::vector<uint64_t> encrypt = {0xffffffffc062f0e0, 0xffffffffc0609d00, 0xffffffffc060a0a0,
                                           0xffffffff814bb0d0, 0xffffffffc0700360, 0xffffffffc0803fa0,
                                           0xffffffffc08056d0, 0xffffffff818caa70, 0xffffffff81c000c0};
    const std::vector<uint64_t> copy = {0xffffffff819f6fe0, 0xffffffff81535f10, 0xffffffff8182df60,
                                        0xffffffffc08056d0, 0xffffffff818caa70, 0xffffffff81c000c0};
    t.counts[SampleKey{0, 0, encrypt}] = {30, 30000000};
    t.counts[SampleKey{0, 0, copy}] = {10, 10000000};
    ExplainSide e = summarize_samples(t, k, 0.001, true);
    EXPECT_NEAR(e.category(Category::crypto), 0.030, 1e-9);
    EXPECT_NEAR(e.category(Category::copy), 0.010, 1e-9);
    ASSERT_FALSE(e.top.empty());
    EXPECT_EQ(e.top[0].name, "_encrypt_by_8_new15047");
    EXPECT_EQ(e.top[0].module, "aesni_intel");
    EXPECT_EQ(e.top[0].category, Category::crypto);
    bool folded = false;
    for (const auto& [s, n] : e.stacks)
        folded = folded || (n == 30 && s == "entry_SYSCALL_64_after_hwframe;inet_sendmsg;tls_sw_sendmsg [tls];"
                                            "tls_push_record [tls];simd_aead_encrypt [crypto_simd];crypto_aead_encrypt;"
                                            "gcmaes_encrypt [aesni_intel];gcmaes_crypt_by_sg [aesni_intel];"
                                            "_encrypt_by_8_new15047 [aesni_intel]");
    EXPECT_TRUE(folded);
}

TEST(ExplainCrypto, LibcryptoTextFromProcMaps) {
    // Real lines of a process that maps OpenSSL 3 (Debian 12's python3 with ssl, this host): only the executable
    // mapping of libcrypto counts, not its data, not libssl, not an anonymous mapping.
    std::istringstream maps(
        "7f2dc8500000-7f2dc8600000 rw-p 00000000 00:00 0 \n"
        "7f2dc8600000-7f2dc86c5000 r--p 00000000 fe:00 332870                     "
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3\n"
        "7f2dc86c5000-7f2dc8942000 r-xp 000c5000 fe:00 332870                     "
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3\n"
        "7f2dc8a82000-7f2dc8a85000 rw-p 00481000 fe:00 332870                     "
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3\n"
        "7f75d1d7b000-7f75d1dd8000 r-xp 0001f000 fe:00 333427                     "
        "/usr/lib/x86_64-linux-gnu/libssl.so.3\n");
    auto text = library_text(maps, 42, "libcrypto.so");
    ASSERT_EQ(text.size(), 1u);
    EXPECT_EQ(text[0].begin, 0x7f2dc86c5000u);
    EXPECT_EQ(text[0].end, 0x7f2dc8942000u);
    EXPECT_EQ(text[0].pid, 42);
    std::istringstream none("garbage\n\n");
    EXPECT_TRUE(library_text(none, 1, "libcrypto.so").empty());
}

TEST(ExplainCrypto, LibcryptoSamplesAreUserCryptoOfOwnProcessesOnly) {
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_6.1_ktls.txt");
    SampleTotals t;
    t.counts[SampleKey{0, SampleKey::user | SampleKey::own | SampleKey::libcrypto, {}}] = {6, 6000000};
    t.counts[SampleKey{0, SampleKey::user | SampleKey::own, {}}] = {3, 3000000};
    t.counts[SampleKey{0, SampleKey::user, {}}] = {1, 1000000};  // another process: its libcrypto is not looked at
    ExplainSide e = summarize_samples(t, k, 0.001, true);
    EXPECT_NEAR(e.category(Category::user_crypto), 0.006, 1e-9);
    EXPECT_NEAR(e.category(Category::user), 0.003, 1e-9);
    EXPECT_NEAR(e.category(Category::other_process), 0.001, 1e-9);
    ASSERT_FALSE(e.top.empty());
    EXPECT_EQ(e.top[0].name, "[zcperf user: libcrypto]");
    bool folded = false;
    for (const auto& [s, n] : e.stacks) folded = folded || (s == "[zcperf user];[libcrypto]" && n == 6);
    EXPECT_TRUE(folded);
}

TEST(ExplainKallsyms, LooksUpFunctionsAndModules) {
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_6.1_virtio.txt");
    EXPECT_FALSE(k.hidden());
    ASSERT_NE(k.find(0xffffffff81100010), nullptr);
    EXPECT_EQ(k.find(0xffffffff81100010)->name, "tcp_sendmsg_locked");
    EXPECT_EQ(k.find(0xffffffff81100800)->name, "tcp_sendmsg");  // the first byte is the function's
    EXPECT_EQ(k.find(0xffffffff811007ff)->name, "tcp_sendmsg_locked");
    EXPECT_EQ(k.find(0xffffffff81300600)->name, "__dev_queue_xmit");  // data symbols are not functions
    EXPECT_EQ(k.find(0xffffffff81400210)->name, "memcpy");            // weak functions are
    const KernelSymbol* v = k.find(0xffffffffc0a01300);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->name, "virtnet_poll");
    EXPECT_EQ(v->module, "virtio_net");
    EXPECT_EQ(k.find(0xffffffffc0b00410)->module, "rdma_rxe");
    EXPECT_EQ(k.find(0xffffffff80000000), nullptr);                                         // below the kernel
    EXPECT_EQ(k.find(0xffffffffc0b00400 + KernelSymbols::kMaxFunctionBytes + 1), nullptr);  // past the end
    // _stext and _text share an address: one symbol is kept
    EXPECT_EQ(k.find(0xffffffff81000010)->address, 0xffffffff81000000u);
}

TEST(ExplainKallsyms, HiddenAddressesAndMissingFile) {
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_hidden.txt");
    EXPECT_TRUE(k.hidden());
    EXPECT_TRUE(k.empty());
    EXPECT_THROW(KernelSymbols(kFixtures + "/kallsyms/absent.txt"), std::runtime_error);
}

TEST(ExplainSummary, CategoriesAddUpAndIdleIsLeftOut) {
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_6.1_virtio.txt");
    SampleTotals t;
    auto add = [&](uint32_t cpu, uint8_t flags, std::vector<uint64_t> ips, uint64_t n) {
        t.counts[SampleKey{cpu, flags, std::move(ips)}] = {n, n * 1000000};  // 1 ms a sample
    };
    const uint64_t copy = 0xffffffff81200010, tcp = 0xffffffff81100010, sys = 0xffffffff81001050;
    const uint64_t idle = 0xffffffff81400010, virtnet = 0xffffffffc0a01300, softirq_less = 0xffffffff81300010;
    add(0, 0, {copy, tcp, sys}, 60);                   // the sender copying
    add(0, 0, {tcp, sys}, 20);                         // TCP
    add(1, SampleKey::idle_task, {idle}, 100);         // idle: left out
    add(1, SampleKey::idle_task, {virtnet, idle}, 5);  // idle task, no interrupt frame: idle
    add(1, 0, {virtnet}, 10);                          // NAPI in a task
    add(1, SampleKey::user | SampleKey::own, {}, 4);   // zcperf's user time
    add(1, SampleKey::user, {}, 1);                    // someone else's
    add(0, 0, {0xffffffff80000000}, 2);                // no symbol: unknown
    add(0, 0, {softirq_less}, 3);
    ExplainSide e = summarize_samples(t, k, 0.001, true);
    EXPECT_TRUE(e.ran);
    EXPECT_EQ(e.samples, 205u);
    EXPECT_EQ(e.busy_samples, 100u);
    EXPECT_NEAR(e.busy_s, 0.100, 1e-9);
    double sum = 0;
    for (double v : e.category_s) sum += v;
    EXPECT_NEAR(sum, e.busy_s, 1e-9);
    EXPECT_NEAR(e.category(Category::copy), 0.060, 1e-9);
    EXPECT_NEAR(e.category(Category::tcp), 0.020, 1e-9);
    EXPECT_NEAR(e.category(Category::netdev), 0.013, 1e-9);
    EXPECT_NEAR(e.category(Category::user), 0.004, 1e-9);
    EXPECT_NEAR(e.category(Category::other_process), 0.001, 1e-9);
    EXPECT_NEAR(e.category(Category::unknown), 0.002, 1e-9);
    ASSERT_EQ(e.per_cpu.size(), 2u);
    EXPECT_NEAR(e.per_cpu[0].busy_s, 0.085, 1e-9);
    EXPECT_NEAR(e.per_cpu[1].busy_s, 0.015, 1e-9);
    ASSERT_FALSE(e.top.empty());
    EXPECT_EQ(e.top[0].name, "copy_user_enhanced_fast_string");
    EXPECT_EQ(e.top[0].category, Category::copy);
    // folded stacks, root first, module named
    bool found = false;
    for (const auto& [s, n] : e.stacks) {
        if (s == "entry_SYSCALL_64_after_hwframe;tcp_sendmsg_locked;copy_user_enhanced_fast_string") {
            EXPECT_EQ(n, 60u);
            found = true;
        }
        EXPECT_EQ(s.find("default_idle"), std::string::npos) << "idle in the stacks: " << s;
    }
    EXPECT_TRUE(found);
    bool module = false;
    for (const auto& [s, n] : e.stacks) module = module || s == "virtnet_poll [virtio_net]";
    EXPECT_TRUE(module);
}

TEST(ExplainSummary, IdleTaskInterruptedForSoftirqIsWork) {
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_6.1_virtio.txt");
    // /proc/stat counts softirq work done on an idle CPU as softirq time: so must we.
    SampleTotals t;
    t.counts[SampleKey{0, SampleKey::idle_task, {0xffffffff81400010}}] = {10, 10000000};  // default_idle
    t.counts[SampleKey{0, SampleKey::idle_task, {0xffffffff81003410, 0xffffffff81003010, 0xffffffff81400010}}] = {
        3, 3000000};
    ExplainSide e = summarize_samples(t, k, 0.001, false);
    EXPECT_EQ(e.samples, 13u);
    EXPECT_EQ(e.busy_samples, 3u);
    EXPECT_NEAR(e.category(Category::netdev), 0.003, 1e-9);
    EXPECT_TRUE(e.stacks.empty());  // not asked
}

TEST(ExplainJson, RoundTripAndOlderPeer) {
    ExplainSide e;
    e.ran = true;
    e.event = "cpu-clock";
    e.hz = 999;
    e.period_s = 1.0 / 999;
    e.samples = 10;
    e.busy_samples = 8;
    e.busy_s = 0.008;
    e.stat_busy_s = 0.0081;
    e.stat_steal_s = 0.0004;
    e.cpus = {0, 1};
    e.category_s[static_cast<size_t>(Category::copy)] = 0.005;
    e.top.push_back({"rep_movs_alternative", "", Category::copy, 0.005});
    e.per_cpu.push_back({0, 0.008, e.category_s});
    e.stacks = {{"a;b", 8}};
    e.sampled_from_s = 11563.861195;
    e.sampled_until_s = 11567.862001;
    ExplainSide back = explain_side_from_json(to_json(e));
    EXPECT_TRUE(back.ran);
    EXPECT_EQ(back.hz, 999);
    EXPECT_DOUBLE_EQ(back.category(Category::copy), 0.005);
    ASSERT_EQ(back.top.size(), 1u);
    EXPECT_EQ(back.top[0].name, "rep_movs_alternative");
    EXPECT_EQ(back.stacks, e.stacks);
    EXPECT_DOUBLE_EQ(back.stat_steal_s, 0.0004);
    EXPECT_DOUBLE_EQ(back.sampled_from_s, 11563.861195);  // the interval, for perf script --time
    EXPECT_DOUBLE_EQ(back.sampled_until_s, 11567.862001);
    // a newer peer's unknown category is ignored, not misfiled; an older one's missing steal is none
    auto j = to_json(e);
    j["category_s"]["quantum"] = 1.0;
    j.erase("proc_stat_steal_cpu_s");
    j.erase("sampled_from_monotonic_s");
    j.erase("sampled_until_monotonic_s");
    EXPECT_DOUBLE_EQ(explain_side_from_json(j).busy_s, 0.008);
    EXPECT_DOUBLE_EQ(explain_side_from_json(j).stat_steal_s, 0.0);
    EXPECT_DOUBLE_EQ(explain_side_from_json(j).sampled_until_s, 0.0);  // an older peer's: not reported
    // repetitions: from the first start to the last stop
    ExplainSide later = e;
    later.sampled_from_s = 11570.0;
    later.sampled_until_s = 11574.0;
    ExplainSide both = later;
    merge_explain(both, e);
    EXPECT_DOUBLE_EQ(both.sampled_from_s, 11563.861195);
    EXPECT_DOUBLE_EQ(both.sampled_until_s, 11574.0);
    EXPECT_DOUBLE_EQ(both.busy_s, 0.016);
    // the idle clocks: carried both ways; an older peer's missing idle clock is 0, its cpuidle absent
    e.cpuidle_busy_s = 0.0079;
    e.idle_clock_busy_s = 0.0082;
    back = explain_side_from_json(to_json(e));
    EXPECT_DOUBLE_EQ(back.cpuidle_busy_s, 0.0079);
    EXPECT_TRUE(back.cpuidle_absent.empty());
    EXPECT_DOUBLE_EQ(back.idle_clock_busy_s, 0.0082);
    j = to_json(e);
    j.erase("cpuidle_busy_cpu_s");
    j.erase("idle_clock_busy_cpu_s");
    EXPECT_FALSE(explain_side_from_json(j).cpuidle_absent.empty());  // an older peer's nothing: absent
    EXPECT_DOUBLE_EQ(explain_side_from_json(j).idle_clock_busy_s, 0.0);
    // no cpuidle: the figure is left out, never 0, and the reason goes with it
    e.cpuidle_busy_s = 0;
    e.cpuidle_absent = "this kernel has no cpuidle driver";
    j = to_json(e);
    EXPECT_FALSE(j.contains("cpuidle_busy_cpu_s")) << j;
    EXPECT_EQ(j["cpuidle_absent"], "this kernel has no cpuidle driver");
    EXPECT_EQ(explain_side_from_json(j).cpuidle_absent, "this kernel has no cpuidle driver");
    e.cpuidle_absent.clear();
    ExplainSide refused;
    refused.problem = "--explain: refused";
    ExplainSide r2 = explain_side_from_json(to_json(refused));
    EXPECT_FALSE(r2.ran);
    EXPECT_EQ(r2.problem, refused.problem);
    EXPECT_THROW(explain_side_from_json(nlohmann::json{{"ran", true}}), std::exception);
}

#include "parse_cli.hpp"

TEST(ExplainCli, OptionsSetTheRateAndStacks) {
    ClientOptions o;
    ASSERT_EQ(test::parse({"-l", "1"}, o), -1);
    EXPECT_EQ(o.params.explain_hz, 0);  // off unless asked
    ClientOptions e;
    ASSERT_EQ(test::parse({"--explain"}, e), -1);
    EXPECT_EQ(e.params.explain_hz, kDefaultExplainHz);
    EXPECT_FALSE(e.params.explain_stacks);
    ClientOptions h;
    ASSERT_EQ(test::parse({"--explain-hz", "4999"}, h), -1);  // implies --explain
    EXPECT_EQ(h.params.explain_hz, 4999);
    ClientOptions s;
    ASSERT_EQ(test::parse({"--explain-stacks", "/tmp/x.folded"}, s), -1);
    EXPECT_EQ(s.params.explain_hz, kDefaultExplainHz);
    EXPECT_TRUE(s.params.explain_stacks);
    EXPECT_EQ(s.explain_stacks, "/tmp/x.folded");
    EXPECT_EQ(test::parse({"--explain-hz", "0"}), 2);
    EXPECT_EQ(test::parse({"--explain-hz", "100000"}), 2);
    // the server's half carries the rate; an older server's silence means off
    HalfSpec half = server_half(TestSpec{h.params, {}, {}, {}});
    EXPECT_EQ(half_spec_from_json(to_json(half)).explain_hz, 4999);
    auto j = to_json(half);
    j.erase("explain_hz");
    EXPECT_EQ(half_spec_from_json(j).explain_hz, 0);
}

TEST(ExplainSummary, ASampleWeighsTheTimeSinceItsCpusLastOne) {
    // A timer that fired late (a descheduled vCPU) fires once for the periods it missed: its sample
    // stands for all of them, not for one period.
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_6.1_virtio.txt");
    SampleTotals t;
    t.counts[SampleKey{0, 0, {0xffffffff81200010}}] = {2, 7000000};  // 2 samples over 7 ms
    ExplainSide e = summarize_samples(t, k, 0.001, false);
    EXPECT_EQ(e.busy_samples, 2u);
    EXPECT_NEAR(e.busy_s, 0.007, 1e-12);
}

TEST(ExplainSummary, ALateSampleAddsToItsCpusTimeNotToItsOwnCategory) {
    // A late timer lands where interrupts came back on, not where its missed periods went: the CPU's
    // total is the weighted one, its shares are the sample counts' (what perf record shows).
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_6.1_virtio.txt");
    SampleTotals t;
    const uint64_t copy = 0xffffffff81200010, tcp = 0xffffffff81100010;
    t.counts[SampleKey{0, 0, {copy, tcp}}] = {9, 9000000};  // 9 on time
    t.counts[SampleKey{0, 0, {tcp}}] = {1, 11000000};       // 1, 10 ms late
    t.counts[SampleKey{1, 0, {copy, tcp}}] = {3, 3000000};  // CPU 1: on time
    ExplainSide e = summarize_samples(t, k, 0.001, false);
    EXPECT_NEAR(e.busy_s, 0.023, 1e-12);
    EXPECT_NEAR(e.category_s[static_cast<size_t>(Category::tcp)], 0.002, 1e-12);  // 1 of CPU 0's 10 samples
    EXPECT_NEAR(e.category_s[static_cast<size_t>(Category::copy)], 0.018 + 0.003, 1e-12);
    ASSERT_EQ(e.per_cpu.size(), 2u);
    EXPECT_NEAR(e.per_cpu[0].busy_s, 0.020, 1e-12);
    EXPECT_NEAR(e.per_cpu[1].busy_s, 0.003, 1e-12);
}

TEST(ExplainSummary, TheTestsOwnUnclassifiedKernelSamplesAreCountedApart) {
    // Of the test's own processes' kernel samples, those no rule names (an address with no symbol here);
    // another process's kernel samples and the test's user time are not among them.
    KernelSymbols k(kFixtures + "/kallsyms/kallsyms_6.1_virtio.txt");
    SampleTotals t;
    const uint8_t own = SampleKey::own;
    t.counts[SampleKey{0, own, {0xffffffff81200010}}] = {8, 8000000};          // own, data copy
    t.counts[SampleKey{0, own, {0x10}}] = {2, 2000000};                        // own, unknown
    t.counts[SampleKey{1, 0, {0x10}}] = {5, 5000000};                          // another process's, unknown
    t.counts[SampleKey{1, own | SampleKey::user, {0x400000}}] = {4, 4000000};  // own user time
    ExplainSide e = summarize_samples(t, k, 0.001, false);
    EXPECT_EQ(e.own_kernel_samples, 10u);
    EXPECT_EQ(e.own_unclassified_samples, 2u);
    const ExplainSide back = explain_side_from_json(to_json(e));
    EXPECT_EQ(back.own_kernel_samples, 10u);
    EXPECT_EQ(back.own_unclassified_samples, 2u);
}

TEST(Cpuidle, ResidencyOfEachStateAddsUpAndAKernelWithoutSaysNone) {
    auto dir = std::filesystem::temp_directory_path() / ("zcperf_cpuidle_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir / "cpu0/cpuidle/state0");
    std::filesystem::create_directories(dir / "cpu0/cpuidle/state1");
    std::filesystem::create_directories(dir / "cpu1");  // no cpuidle folder: this CPU has none
    std::ofstream(dir / "cpu0/cpuidle/state0/time") << "1500000\n";
    std::ofstream(dir / "cpu0/cpuidle/state1/time") << "500000\n";
    auto idle = cpuidle_idle_s({0}, dir.string());
    ASSERT_TRUE(idle.has_value());
    EXPECT_DOUBLE_EQ(*idle, 2.0);
    EXPECT_FALSE(cpuidle_idle_s({0, 1}, dir.string()).has_value());
    CpuidleClock none({0, 1}, dir.string());
    none.start();
    none.stop();
    EXPECT_FALSE(none.busy_cpu_s().has_value());
    // and says why: no driver file, or a driver of "none"
    EXPECT_NE(cpuidle_absent_reason(dir.string()).find("no cpuidle"), std::string::npos);
    std::filesystem::create_directories(dir / "cpuidle");
    std::ofstream(dir / "cpuidle/current_driver") << "none\n";
    EXPECT_NE(cpuidle_absent_reason(dir.string()).find("current_driver reads none"), std::string::npos);
    CpuidleClock one({0}, dir.string());
    one.start();
    std::ofstream(dir / "cpu0/cpuidle/state1/time") << "500001\n";  // 1 us idle in the interval
    one.stop();
    ASSERT_TRUE(one.busy_cpu_s().has_value());
    EXPECT_GE(*one.busy_cpu_s(), 0.0);
    std::filesystem::remove_all(dir);
}
