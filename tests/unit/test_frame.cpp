// Control-connection framing: "ZCPF" + 4-byte big-endian length + body, bounded in size and time.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "core/unique_fd.hpp"

using namespace zc;
using namespace std::chrono_literals;

namespace {

std::array<char, kFrameHeaderSize> header_of(std::string_view bytes) {
    std::array<char, kFrameHeaderSize> h{};
    std::memcpy(h.data(), bytes.data(), kFrameHeaderSize);
    return h;
}

std::array<char, kFrameHeaderSize> header_with_length(uint32_t n) {
    std::string f = encode_frame("");
    f[4] = static_cast<char>(n >> 24);
    f[5] = static_cast<char>(n >> 16);
    f[6] = static_cast<char>(n >> 8);
    f[7] = static_cast<char>(n);
    return header_of(f);
}

struct SocketPair {
    UniqueFd a, b;
    SocketPair() {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) throw std::runtime_error("socketpair");
        a.reset(fds[0]);
        b.reset(fds[1]);
    }
};

}  // namespace

TEST(Frame, EncodesMagicAndBigEndianLength) {
    std::string body(0x010203, 'x');
    std::string f = encode_frame(body);
    ASSERT_EQ(f.size(), 8u + 0x010203u);
    EXPECT_EQ(f.substr(0, 4), "ZCPF");
    EXPECT_EQ(static_cast<unsigned char>(f[4]), 0x00);
    EXPECT_EQ(static_cast<unsigned char>(f[5]), 0x01);
    EXPECT_EQ(static_cast<unsigned char>(f[6]), 0x02);
    EXPECT_EQ(static_cast<unsigned char>(f[7]), 0x03);
    EXPECT_EQ(f.substr(8), body);
}

TEST(Frame, EmptyBodyIsJustTheHeader) {
    std::string f = encode_frame("");
    EXPECT_EQ(f, std::string("ZCPF\0\0\0\0", 8));
    EXPECT_EQ(decode_frame_header(header_of(f), kMaxRequestBody), 0u);
}

TEST(Frame, HeaderRoundTripsLengths) {
    for (size_t n : {size_t{1}, size_t{255}, size_t{256}, size_t{65535}, kMaxRequestBody}) {
        std::string f = encode_frame(std::string(n, 'a'));
        EXPECT_EQ(decode_frame_header(header_of(f), kMaxRequestBody), n) << n;
    }
    // A length with every byte above 0x7f: no sign extension of the bytes.
    EXPECT_EQ(decode_frame_header(header_with_length(0xfffefdfcu), 0xffffffffu), 0xfffefdfcu);
    EXPECT_EQ(decode_frame_header(header_with_length(0x00ff80ffu), 0xffffffffu), 0x00ff80ffu);
}

TEST(Frame, WrongMagicFromHttpClientIsNamed) {
    try {
        decode_frame_header(header_of("GET / HTTP/1.1\r\n"), kMaxRequestBody);
        FAIL() << "an HTTP request was accepted as a frame";
    } catch (const ProtocolError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("'GET '"), std::string::npos) << what;
        EXPECT_NE(what.find("does not speak the zcperf control protocol"), std::string::npos) << what;
    }
}

TEST(Frame, WrongMagicShowsUnprintableBytesAsDots) {
    std::string bin("\x16\x03\x01\x02\x00\x00\x00\x00", 8);  // a TLS ClientHello
    try {
        decode_frame_header(header_of(bin), kMaxRequestBody);
        FAIL();
    } catch (const ProtocolError& e) {
        EXPECT_NE(std::string(e.what()).find("'....'"), std::string::npos) << e.what();
    }
    // Nearly right: lower-case magic, or one byte off.
    EXPECT_THROW(decode_frame_header(header_of(std::string("zcpf\0\0\0\0", 8)), kMaxRequestBody), ProtocolError);
    EXPECT_THROW(decode_frame_header(header_of(std::string("ZCPG\0\0\0\0", 8)), kMaxRequestBody), ProtocolError);
}

TEST(Frame, OversizedLengthRejected) {
    EXPECT_EQ(decode_frame_header(header_with_length(kMaxRequestBody), kMaxRequestBody), kMaxRequestBody);
    EXPECT_THROW(decode_frame_header(header_with_length(kMaxRequestBody + 1), kMaxRequestBody), ProtocolError);
    EXPECT_THROW(decode_frame_header(header_with_length(0xffffffffu), kMaxReplyBody), ProtocolError);
    EXPECT_EQ(decode_frame_header(header_with_length(kMaxReplyBody), kMaxReplyBody), kMaxReplyBody);
    EXPECT_THROW(decode_frame_header(header_with_length(kMaxReplyBody + 1), kMaxReplyBody), ProtocolError);
    try {
        decode_frame_header(header_with_length(70000), kMaxRequestBody);
        FAIL();
    } catch (const ProtocolError& e) {
        EXPECT_NE(std::string(e.what()).find("70000"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("65536"), std::string::npos) << e.what();
    }
}

TEST(FrameIo, WriteAllThenReadFrameOverSocketPair) {
    SocketPair sp;
    std::string body = encode_body(Ready{4242, 77});
    write_all(sp.a.get(), encode_frame(body), 1s);
    EXPECT_EQ(read_frame(sp.b.get(), kMaxRequestBody, 1s), body);
}

TEST(FrameIo, ReadsBackToBackFramesSeparately) {
    SocketPair sp;
    write_all(sp.a.get(), encode_frame("first") + encode_frame("") + encode_frame("third"), 1s);
    EXPECT_EQ(read_frame(sp.b.get(), kMaxRequestBody, 1s), "first");
    EXPECT_EQ(read_frame(sp.b.get(), kMaxRequestBody, 1s), "");
    EXPECT_EQ(read_frame(sp.b.get(), kMaxRequestBody, 1s), "third");
}

TEST(FrameIo, LargeFrameWrittenConcurrentlyArrivesWhole) {
    // 3 MiB is far above the socket buffer: write_all must loop on partial sends, read_frame on partial reads.
    SocketPair sp;
    std::string body(3 << 20, '\0');
    for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>(i * 31 + 7);
    std::thread writer([&] { write_all(sp.a.get(), encode_frame(body), 5s); });
    std::string got = read_frame(sp.b.get(), kMaxReplyBody, 5s);
    writer.join();
    EXPECT_EQ(got.size(), body.size());
    EXPECT_TRUE(got == body);
}

TEST(FrameIo, WrongMagicOnTheWireIsProtocolError) {
    SocketPair sp;
    write_all(sp.a.get(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 1s);
    EXPECT_THROW(read_frame(sp.b.get(), kMaxRequestBody, 1s), ProtocolError);
}

TEST(FrameIo, OversizedFrameOnTheWireIsProtocolError) {
    SocketPair sp;
    write_all(sp.a.get(), encode_frame(std::string(kMaxRequestBody + 1, 'x')).substr(0, 64), 1s);
    EXPECT_THROW(read_frame(sp.b.get(), kMaxRequestBody, 1s), ProtocolError);
}

TEST(FrameIo, WriterClosingMidBodyIsConnectionError) {
    SocketPair sp;
    std::string f = encode_frame(std::string(1000, 'x'));
    write_all(sp.a.get(), std::string_view(f).substr(0, 8 + 500), 1s);
    sp.a.reset();
    EXPECT_THROW(read_frame(sp.b.get(), kMaxRequestBody, 1s), ConnectionError);
}

TEST(FrameIo, WriterClosingMidHeaderIsConnectionError) {
    SocketPair sp;
    write_all(sp.a.get(), "ZCP", 1s);
    sp.a.reset();
    EXPECT_THROW(read_frame(sp.b.get(), kMaxRequestBody, 1s), ConnectionError);
}

TEST(FrameIo, ClosedBeforeAnythingIsConnectionError) {
    SocketPair sp;
    sp.a.reset();
    try {
        read_frame(sp.b.get(), kMaxRequestBody, 1s);
        FAIL();
    } catch (const ConnectionError& e) {
        EXPECT_NE(std::string(e.what()).find("closed"), std::string::npos) << e.what();
    }
}

TEST(FrameIo, SilentPeerTimesOut) {
    SocketPair sp;
    auto t0 = std::chrono::steady_clock::now();
    try {
        read_frame(sp.b.get(), kMaxRequestBody, 150ms);
        FAIL() << "read_frame returned on a silent peer";
    } catch (const ConnectionError& e) {
        EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
    }
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(ms, 140);
    EXPECT_LT(ms, 2000);
}

TEST(FrameIo, PeerStallingMidBodyTimesOutWithinTheWholeFrameDeadline) {
    // The timeout bounds the whole frame, not each read: a peer trickling a header then stalling fails in time.
    SocketPair sp;
    std::string f = encode_frame(std::string(100, 'x'));
    write_all(sp.a.get(), std::string_view(f).substr(0, 20), 1s);
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(read_frame(sp.b.get(), kMaxRequestBody, 150ms), ConnectionError);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(ms, 2000);
}

TEST(FrameIo, WriteAllToAPeerThatNeverReadsTimesOut) {
    SocketPair sp;
    std::string big(16 << 20, 'x');  // far more than a socketpair buffers
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(write_all(sp.a.get(), big, 150ms), ConnectionError);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(ms, 140);
    EXPECT_LT(ms, 2000);
}

TEST(FrameIo, WriteAllToAClosedPeerIsConnectionErrorNotSigpipe) {
    SocketPair sp;
    sp.b.reset();
    EXPECT_THROW(write_all(sp.a.get(), std::string(1000, 'x'), 1s), ConnectionError);
}
