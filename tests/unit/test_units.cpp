// Sizes as the CLI takes them: "64K", lists and doubling ranges.
#include <gtest/gtest.h>

#include <cstdint>

#include "core/units.hpp"

using namespace zc;
using V = std::vector<uint64_t>;

TEST(ParseSize, PlainAndSuffixed) {
    EXPECT_EQ(parse_size("0"), 0u);
    EXPECT_EQ(parse_size("4096"), 4096u);
    EXPECT_EQ(parse_size("64K"), 65536u);
    EXPECT_EQ(parse_size("64k"), 65536u);
    EXPECT_EQ(parse_size("1M"), 1048576u);
    EXPECT_EQ(parse_size("3m"), 3u << 20);
    EXPECT_EQ(parse_size("2G"), 2ull << 30);
    EXPECT_EQ(parse_size("1g"), 1ull << 30);
    EXPECT_EQ(parse_size("5T"), 5ull << 40);
    EXPECT_EQ(parse_size(" 8K\t"), 8192u);  // surrounding blanks
    EXPECT_EQ(parse_size("18446744073709551615"), UINT64_MAX);
    EXPECT_EQ(parse_size("16777215T"), 16777215ull << 40);
}

TEST(ParseSize, Errors) {
    for (const char* bad : {"", " ", "K", "64Ki", "64KiB", "1MB", "1.5M", "-1", "+1", "0x10", "64 K", "K64", "abc",
                            "1e3", "18446744073709551616", "16777216T", "99999999999G", "64KK"}) {
        EXPECT_THROW(parse_size(bad), std::invalid_argument) << "'" << bad << "'";
    }
    try {
        parse_size("64Ki");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("64K, not 64Ki"), std::string::npos) << e.what();
    }
}

TEST(ParseSizeList, SingleAndList) {
    EXPECT_EQ(parse_size_list("64K"), V({65536}));
    EXPECT_EQ(parse_size_list("64K,1M"), V({65536, 1048576}));
    EXPECT_EQ(parse_size_list("1M,64K,1M"), V({1048576, 65536, 1048576}));  // order and repeats kept
}

TEST(ParseSizeList, DoublingRange) {
    EXPECT_EQ(parse_size_list("64K..4M"), V({64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20}));
    EXPECT_EQ(parse_size_list("1..8"), V({1, 2, 4, 8}));
    EXPECT_EQ(parse_size_list("4K..4K"), V({4096}));
    EXPECT_EQ(parse_size_list("1K..2K"), V({1024, 2048}));
}

TEST(ParseSizeList, RangeWithEndsOffTheLadder) {
    // The upper end is added last when the doubling ladder misses it.
    EXPECT_EQ(parse_size_list("100..1000"), V({100, 200, 400, 800, 1000}));
    EXPECT_EQ(parse_size_list("3K..10K"), V({3072, 6144, 10240}));
    EXPECT_EQ(parse_size_list("1000..1023"), V({1000, 1023}));
    EXPECT_EQ(parse_size_list("64K..100K"), V({65536, 102400}));
}

TEST(ParseSizeList, RangeNearTheTopDoesNotOverflow) {
    // 2^63 doubled would wrap to 0: the ladder must stop, then add the end.
    EXPECT_EQ(parse_size_list("9223372036854775808..18446744073709551615"), V({9223372036854775808ull, UINT64_MAX}));
    EXPECT_EQ(parse_size_list("4T..16T"), V({4ull << 40, 8ull << 40, 16ull << 40}));
}

TEST(ParseSizeList, RangesMixedWithItems) {
    EXPECT_EQ(parse_size_list("1K,4K..16K,100"), V({1024, 4096, 8192, 16384, 100}));
}

TEST(ParseSizeList, Errors) {
    for (const char* bad :
         {"", ",", "64K,", ",64K", "64K,,1M", "4M..64K", "0..4K", "..4K", "4K..", "4K...8K", "1K..x", "64Ki..1M"}) {
        EXPECT_THROW(parse_size_list(bad), std::invalid_argument) << "'" << bad << "'";
    }
}

TEST(FormatSize, BinaryMultiples) {
    EXPECT_EQ(format_size(0), "0");
    EXPECT_EQ(format_size(1000), "1000");
    EXPECT_EQ(format_size(1024), "1K");
    EXPECT_EQ(format_size(1536), "1536");
    EXPECT_EQ(format_size(65536), "64K");
    EXPECT_EQ(format_size(1048576), "1M");
    EXPECT_EQ(format_size(3ull << 30), "3G");
    EXPECT_EQ(format_size(1ull << 40), "1T");
    EXPECT_EQ(format_size(1ull << 50), "1024T");  // T is the largest suffix
    for (uint64_t v : {1ull, 4096ull, 100ull << 10, 5ull << 30, 12345ull}) EXPECT_EQ(parse_size(format_size(v)), v);
}
