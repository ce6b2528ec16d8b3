// CPU lists: the kernel's "0-3,8" and the per-side "0+2+4".
#include <gtest/gtest.h>

#include "system/cpu_list.hpp"

using namespace zc;
using V = std::vector<int>;

TEST(CpuList, ParseKernelStyle) {
    EXPECT_EQ(parse_cpu_list("0"), V({0}));
    EXPECT_EQ(parse_cpu_list("0-3,8"), V({0, 1, 2, 3, 8}));
    EXPECT_EQ(parse_cpu_list("0-1,4-5,10"), V({0, 1, 4, 5, 10}));
    EXPECT_EQ(parse_cpu_list("7-7"), V({7}));
    EXPECT_EQ(parse_cpu_list("0-3\n"), V({0, 1, 2, 3}));  // as read from sysfs
    EXPECT_EQ(parse_cpu_list("3,1,2"), V({3, 1, 2}));     // order kept
    EXPECT_EQ(parse_cpu_list("65535"), V({65535}));
    EXPECT_TRUE(parse_cpu_list("").empty());
    EXPECT_TRUE(parse_cpu_list("\n").empty());  // an empty sysfs list
}

TEST(CpuList, PlusSeparator) {
    EXPECT_EQ(parse_cpu_list("0+2+4", '+'), V({0, 2, 4}));
    EXPECT_EQ(parse_cpu_list("0-3", '+'), V({0, 1, 2, 3}));
    EXPECT_EQ(parse_cpu_list("0-1+6-7", '+'), V({0, 1, 6, 7}));
    EXPECT_THROW(parse_cpu_list("0,2", '+'), std::invalid_argument);  // a comma is not the separator here
}

TEST(CpuList, Errors) {
    for (const char* bad : {"a", "-1", "1-", "-", "3-1", "1,,2", ",1", "1,", "1-2-3", "0x1", " 1", "1 2", "65536",
                            "0-65536", "99999999999", "1.5"}) {
        EXPECT_THROW(parse_cpu_list(bad), std::invalid_argument) << "'" << bad << "'";
    }
    EXPECT_THROW(parse_cpu_list("0++2", '+'), std::invalid_argument);
    try {
        parse_cpu_list("0,x");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
    }
}

TEST(CpuList, Format) {
    EXPECT_EQ(format_cpu_list({}), "");
    EXPECT_EQ(format_cpu_list({5}), "5");
    EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8}), "0-3,8");
    EXPECT_EQ(format_cpu_list({0, 2, 4}), "0,2,4");
    EXPECT_EQ(format_cpu_list({0, 1}), "0-1");
    EXPECT_EQ(format_cpu_list({8, 3, 1, 2, 2, 3}), "1-3,8");  // sorted, duplicates merged
    EXPECT_EQ(format_cpu_list({0, 1, 2, 4, 5, 6, 9}), "0-2,4-6,9");
}

TEST(CpuList, RoundTrip) {
    for (const char* s : {"0", "0-3,8", "1,3,5-9,12-13", "0-127"}) EXPECT_EQ(format_cpu_list(parse_cpu_list(s)), s);
}
