// --explain's categories held against two independent sources. A published mapping: the 403 kernel functions of
// Cai et al., "Understanding Host Network Stack Overheads" (SIGCOMM 2021), in the study's own 8
// categories (tests/fixtures/explain/sigcomm21_study_categories.txt says where they come from).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "explain/categories.hpp"
#include "explain/rules_report.hpp"
#include "explain/source_files.hpp"

using namespace zc;

namespace {
const std::string kFixtures = ZCPERF_FIXTURES;

// THE MAPPING between the two sets of categories (docs/explain.md mirrors it): the study's categories
// each of zcperf's falls in; "" where the study has none (its "etc" is "none of ours", not a category).
// zcperf's syscall/IRQ entry holds what the study splits in two: system call and interrupt entry and
// exit (its "sched") and the socket layer's generic part, sock_sendmsg, __sys_recvfrom (its "tcp/ip").
// Checksum, crypto, zero-copy bookkeeping and RDMA have no counterpart: a function the study names
// that zcperf puts there is a disagreement.
struct StudyOf {
    Category ours;
    const char* study;
    const char* also = "";
};
constexpr std::array<StudyOf, 15> kStudyCategoryOf = {{
    {Category::copy, "data_copy"},
    {Category::checksum, ""},
    {Category::crypto, ""},
    {Category::tcp, "tcp/ip"},
    {Category::udp, "tcp/ip"},
    {Category::netdev, "netdev"},
    {Category::skb, "skb"},
    {Category::memory, "mm"},
    {Category::zerocopy, ""},
    {Category::lock, "lock"},
    {Category::sched, "sched"},
    {Category::syscall, "sched", "tcp/ip"},
    {Category::rdma, ""},
    {Category::smc, ""},
    {Category::bpf, ""},
}};

bool same_category(Category c, const std::string& study) {
    for (const auto& m : kStudyCategoryOf)
        if (m.ours == c) return !study.empty() && (study == m.study || study == m.also);
    return false;  // user time, other processes, other kernel, unknown: none of the study's
}

// Functions the study lists from user space (glibc's, as its profiles named them): zcperf counts user
// time by process and by libcrypto's mapping, never by a function's name, so they are not compared.
constexpr std::array<const char*, 4> kUserSpace = {"__strncpy_avx2", "__libc_recv", "dso__find_symbol",
                                                   "__symbols__insert"};

// The fixture: "category: name name ..." a line, '#' comments.
std::map<std::string, std::string> study_facts() {
    std::ifstream in(kFixtures + "/explain/sigcomm21_study_categories.txt");
    std::map<std::string, std::string> facts;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const size_t colon = line.find(':');
        std::istringstream names(line.substr(colon + 1));
        for (std::string name; names >> name;) facts[name] = line.substr(0, colon);
    }
    return facts;
}

// The functions of docs/explain.md's table of disagreements (a row: "| `name` | ...").
std::vector<std::string> documented_disagreements() {
    std::ifstream in(kFixtures + "/../../docs/explain.md");
    std::vector<std::string> names;
    bool in_table = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("### Where zcperf and the study disagree", 0) == 0)
            in_table = true;
        else if (in_table && line.rfind("#", 0) == 0)
            break;
        else if (in_table && line.rfind("| `", 0) == 0)
            names.push_back(line.substr(3, line.find('`', 3) - 3));
    }
    return names;
}
}  // namespace

TEST(ExplainStudy, TheMappingCoversEveryWorkCategoryOnce) {
    // every category that is kernel work (not user time, other processes, other kernel or unknown) has a row
    for (size_t i = 0; i < static_cast<size_t>(Category::user); ++i) {
        int rows = 0;
        for (const auto& m : kStudyCategoryOf) rows += m.ours == static_cast<Category>(i);
        EXPECT_EQ(rows, 1) << category_key(static_cast<Category>(i));
    }
}

TEST(ExplainStudy, AgreesWithTheSigcomm21MappingOnTheFunctionsBothName) {
    const auto facts = study_facts();
    ASSERT_EQ(facts.size(), 403u) << "the fixture lost or gained functions";
    size_t both = 0, agree = 0;
    std::vector<std::string> disagree;
    std::map<std::string, size_t> ours_other;  // study category -> functions zcperf leaves in other kernel
    for (const auto& [name, study] : facts) {
        const Category c = category_of_function(name);
        if (study == "etc" || c == Category::idle || c == Category::inherit) continue;  // not both named
        if (std::find(kUserSpace.begin(), kUserSpace.end(), name) != kUserSpace.end()) continue;
        ++both;
        if (same_category(c, study)) {
            ++agree;
        } else {
            disagree.push_back(name + " (study " + study + ", zcperf " + category_key(c) + ")");
            if (c == Category::other) ++ours_other[study];
        }
    }
    const double pct = 100.0 * static_cast<double>(agree) / static_cast<double>(both);
    std::ostringstream list;
    for (const auto& d : disagree) list << "\n  " << d;
    RecordProperty("agreement", ::testing::PrintToString(std::vector<size_t>{agree, both}));
    std::cout << "agreement with the study: " << agree << " of " << both << " (" << pct << " %)\n";
    EXPECT_GE(pct, 95.0) << agree << " of " << both << " agree (" << pct << " %); the others:" << list.str();
    std::ostringstream others;
    for (const auto& d : disagree)
        if (d.find("zcperf other)") != std::string::npos) others << "\n  " << d;
    EXPECT_TRUE(ours_other.empty()) << "functions the study names that zcperf leaves in other kernel:" << others.str();
    // every disagreement is in docs/explain.md's table with the reason zcperf's choice is right, and the
    // table lists no function that agrees now
    const auto documented = documented_disagreements();
    for (const auto& d : disagree) {
        const std::string name = d.substr(0, d.find(' '));
        EXPECT_NE(std::find(documented.begin(), documented.end(), name), documented.end())
            << name << " disagrees but docs/explain.md's table does not say why: " << d;
    }
    for (const auto& name : documented) {
        bool listed = false;
        for (const auto& d : disagree) listed = listed || d.substr(0, d.find(' ')) == name;
        EXPECT_TRUE(listed) << name << " is in docs/explain.md's table but agrees (or is not both named) now";
    }
}

// The kernel's own layout: a function no name rule names takes its source file's rule (Debian kernels'
// DWARF, embedded), before the module rules; a name no kernel's data has stays other kernel.
TEST(ExplainSources, AFunctionNoNameRuleNamesTakesItsSourceFilesRule) {
    // the IOMMU, the page allocator's insides, RPS, conntrack: other kernel before the file rules
    EXPECT_EQ(category_of_function("alloc_iova_fast"), Category::memory);
    EXPECT_EQ(category_of_function("prep_compound_page"), Category::memory);
    EXPECT_EQ(category_of_function("get_partial_node"), Category::memory);
    EXPECT_EQ(category_of_function("get_rps_cpu"), Category::netdev);
    EXPECT_EQ(category_of_function("__get_xps_queue_idx"), Category::netdev);
    EXPECT_EQ(category_of_function("hash_conntrack_raw [nf_conntrack]"), Category::tcp);
    EXPECT_EQ(category_of_function("iov_iter_advance"), Category::copy);
    const Classification c = classify_function("prep_compound_page.part.0");
    ASSERT_NE(c.source, nullptr);
    EXPECT_EQ(c.rule, nullptr);
    EXPECT_EQ(c.file, "mm/page_alloc.c");
    EXPECT_EQ(c.source->path_prefix, "mm/");
    // a name rule stays first: tcp_zerocopy_receive is in net/ipv4/tcp.c, and zero-copy bookkeeping
    EXPECT_EQ(category_of_function("tcp_zerocopy_receive"), Category::zerocopy);
    EXPECT_EQ(classify_function("tcp_sendmsg").source, nullptr);
    // no kernel's data: other kernel, as before
    EXPECT_EQ(category_of_function("zc_no_kernel_has_this"), Category::other);
    // both kernels' data are embedded and name their packages
    const auto kernels = source_file_kernels();
    ASSERT_EQ(kernels.size(), 2u);
    EXPECT_NE(kernels[0].find("linux-image-6.1.0-57-amd64-dbg"), std::string::npos) << kernels[0];
    EXPECT_NE(kernels[1].find("linux-image-6.12.118+deb12-amd64-dbg"), std::string::npos) << kernels[1];
}

// Helpers whose files say "inherit": the caller decides. Chains (leaf first) as a zero-copy sender's own
// kernel samples held them in the lab's 6.1 guests, where they were other kernel.
TEST(ExplainSources, AHelperFilesRuleGivesItsCallersCategory) {
    using V = std::vector<std::string_view>;
    EXPECT_EQ(category_of_function("sg_init_table"), Category::inherit);  // lib/scatterlist.c
    EXPECT_EQ(attribute_chain(V{"memset_erms", "sg_init_table", "start_xmit [virtio_net]", "dev_hard_start_xmit"}),
              Category::netdev);
    EXPECT_EQ(attribute_chain(V{"aa_file_perm", "apparmor_file_permission", "security_file_permission", "do_sendfile",
                                "__x64_sys_sendfile64"}),
              Category::syscall);  // the LSM's check costs the system call that asked for it
    EXPECT_EQ(attribute_chain(V{"bpf_lsm_capable", "security_capable", "capable", "mm_account_pinned_pages"}),
              Category::zerocopy);
    EXPECT_EQ(attribute_chain(V{"put_cmsg", "ip_recv_error", "tcp_recvmsg"}), Category::zerocopy);
    EXPECT_EQ(attribute_chain(V{"current_time", "atime_needs_update", "touch_atime", "splice_direct_to_actor"}),
              Category::syscall);
    EXPECT_EQ(attribute_chain(V{"minmax_running_min", "tcp_ack_update_rtt", "tcp_ack"}), Category::tcp);
    EXPECT_EQ(attribute_chain(V{"get_random_u32", "__get_random_u32_below", "allocate_slab", "___slab_alloc"}),
              Category::memory);
    EXPECT_EQ(attribute_chain(V{"sanity.isra.0", "copy_page_to_iter", "shmem_file_read_iter"}), Category::copy);
    EXPECT_EQ(attribute_chain(V{"blkcg_maybe_throttle_current", "exit_to_user_mode_prepare"}), Category::syscall);
    EXPECT_EQ(category_of_function("get_pipe_info"), Category::syscall);  // fs/pipe.c: sendfile's pipe
    EXPECT_EQ(category_of_function("pgd_none"), Category::memory);
    // a chain of helpers alone is still other kernel
    EXPECT_EQ(attribute_chain(V{"sg_next", "sg_init_table"}), Category::other);
}

TEST(ExplainSources, PathRulesMostSpecificFirst) {
    EXPECT_EQ(source_rule_of_path("net/ipv4/tcp_offload.c")->category, Category::netdev);
    EXPECT_EQ(source_rule_of_path("net/ipv4/tcp_input.c")->category, Category::tcp);
    EXPECT_EQ(source_rule_of_path("net/ipv4/udp.c")->category, Category::udp);
    EXPECT_EQ(source_rule_of_path("net/core/page_pool.c")->category, Category::memory);
    EXPECT_EQ(source_rule_of_path("arch/x86/crypto/crc32c-intel_glue.c")->category, Category::checksum);
    EXPECT_EQ(source_rule_of_path("fs/namei.c"), nullptr);  // a file system's work: no rule
    // no rule is shadowed by one above it (a longer prefix below a shorter one that matches it)
    const auto& rules = source_rules();
    for (size_t i = 0; i < rules.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            EXPECT_NE(rules[i].path_prefix.substr(0, rules[j].path_prefix.size()), rules[j].path_prefix)
                << rules[i].path_prefix << " is shadowed by " << rules[j].path_prefix;
}

TEST(ExplainSources, ExplainCategoriesPrintsEachFunctionsRule) {
    std::ostringstream out;
    write_category_rules(out, kFixtures + "/explain/kallsyms_rules.txt");
    const std::string s = out.str();
    EXPECT_NE(s.find("tcp\tprefix tcp\ttcp_sendmsg\t\n"), std::string::npos) << s;
    EXPECT_NE(s.find("memory\tfile mm/\tprep_compound_page\tmm/page_alloc.c\n"), std::string::npos) << s;
    EXPECT_NE(
        s.find("tcp\tfile net/netfilter/\thash_conntrack_raw [nf_conntrack]\tnet/netfilter/nf_conntrack_core.c\n"),
        std::string::npos)
        << s;
    EXPECT_NE(s.find("crypto\tmodule aesni_intel\t_encrypt_by_8_new15047 [aesni_intel]"), std::string::npos) << s;
    EXPECT_NE(s.find("other\tnone\tzc_no_kernel_has_this\t\n"), std::string::npos) << s;
    EXPECT_EQ(s.find("some_data_symbol"), std::string::npos) << "a data symbol is not a function";
    EXPECT_NE(s.find("# 7 functions; by rule: file 3 module 1 none 1 prefix 2;"), std::string::npos) << s;
    EXPECT_THROW(write_category_rules(out, kFixtures + "/explain/no_such_file"), std::runtime_error);
}
