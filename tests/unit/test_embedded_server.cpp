// When zcperf's embedded server dies of SIGKILL mid-run, the report says whether the kernel's OOM killer
// sent it: /proc/vmstat's oom_kill count (Linux 4.13+) read when the server started and again when it ended.
#include <gtest/gtest.h>

#include <string>

#include "embedded_server.hpp"
#include "measure/proc_stat.hpp"

namespace zc {
namespace {

const std::string kFixtures = ZCPERF_FIXTURES;

TEST(EmbeddedServer, ReadsTheHostsOomKillCountFromVmstat) {
    EXPECT_EQ(read_oom_kills(kFixtures + "/proc/vmstat_6.18.txt"), 3u);
    EXPECT_EQ(read_oom_kills(kFixtures + "/proc/vmstat_no_oom_kill.txt"), std::nullopt);  // before Linux 4.13
    EXPECT_EQ(read_oom_kills(kFixtures + "/proc/no_such_file"), std::nullopt);
}

TEST(EmbeddedServer, ASigkillIsBlamedOnTheOomKillerOnlyWhenItsCountRose) {
    EXPECT_EQ(sigkill_cause(3, 5),
              "the kernel's OOM killer (/proc/vmstat's oom_kill rose by 2 during the run: see dmesg, and the memory "
              "limit of the cgroup it runs in)");
    EXPECT_EQ(sigkill_cause(3, 3),
              "not the OOM killer (/proc/vmstat's oom_kill did not move during the run): another process sent it");
    EXPECT_EQ(sigkill_cause(std::nullopt, 3), "the kernel's OOM killer (see dmesg) or another process");
    EXPECT_EQ(sigkill_cause(3, std::nullopt), "the kernel's OOM killer (see dmesg) or another process");
}

}  // namespace
}  // namespace zc
