// libFuzzer target for the control protocol's decoders: arbitrary bytes from the network must only
// ever be rejected with zc::ProtocolError, never with another exception, a crash, a hang or an
// AddressSanitizer report. The first 8 bytes go to decode_frame_header (with both the request and the
// reply limit), the rest to decode_body.
//
// ZCPERF_FUZZ_STRICT=1 (run_fuzz.sh --strict) adds what the peers do with a decoded message: every
// rejection's text must encode as an ErrorMsg (zcserver sends it back to the client), and every
// accepted message must encode again and decode to the same encoding. run_fuzz.sh also makes
// UBSan fatal then. Strict mode fails on today's code: see tests/fuzz/CMakeLists.txt.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "protocol/frame.hpp"
#include "protocol/messages.hpp"
#include "protocol/kind_block.hpp"
#include "seed_corpus.hpp"

namespace {

[[noreturn]] void die(const char* what, const char* detail) {
    std::fprintf(stderr, "zcperf_fuzz_protocol: %s: %s\n", what, detail);
    std::abort();
}

bool strict() {
    static const bool on = [] {
        const char* v = std::getenv("ZCPERF_FUZZ_STRICT");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    return on;
}

// What Session::fail() does with a rejection: the reason goes back to the peer as an ErrorMsg.
void check_error_echo(const zc::ProtocolError& e) {
    if (!strict()) return;
    try {
        (void)zc::encode_message(zc::ErrorMsg{e.what()});
    } catch (const std::exception& x) {
        die("encoding the rejection's reason as an ErrorMsg threw (zcserver would throw out of its io loop)", x.what());
    }
}

void check_header(const std::array<char, zc::kFrameHeaderSize>& header, size_t max_body) {
    try {
        size_t n = zc::decode_frame_header(header, max_body);
        if (n > max_body) die("decode_frame_header", "accepted a length over the limit");
        if (std::memcmp(header.data(), zc::kFrameMagic.data(), zc::kFrameMagic.size()) != 0) {
            die("decode_frame_header", "accepted a header without the magic");
        }
    } catch (const zc::ProtocolError& e) {
        check_error_echo(e);
    } catch (const std::exception& e) {
        die("decode_frame_header threw something other than ProtocolError", e.what());
    } catch (...) {
        die("decode_frame_header threw something other than ProtocolError", "(not a std::exception)");
    }
}

void check_body(std::string_view body) {
    zc::Message m;
    try {
        m = zc::decode_body(body);
    } catch (const zc::ProtocolError& e) {
        check_error_echo(e);
        return;
    } catch (const std::exception& e) {
        die("decode_body threw something other than ProtocolError", e.what());
    } catch (...) {
        die("decode_body threw something other than ProtocolError", "(not a std::exception)");
    }
    // Accepted: it must encode, and the encoding must decode to the same encoding (a fixed point).
    if (!strict()) return;
    std::string once, twice;
    try {
        once = zc::encode_body(m);
    } catch (const std::exception& e) {
        die("encode_body threw on a message decode_body accepted", e.what());
    }
    try {
        auto again = zc::decode_body(once);
        if (again.index() != m.index()) die("round trip", "the message type changed");
        twice = zc::encode_body(again);
    } catch (const std::exception& e) {
        die("decoding our own encoding of an accepted message failed", e.what());
    }
    if (once != twice) die("round trip", "encode(decode(encode(m))) differs from encode(m)");
}

// Every kind's block registers itself from its codec file (common/kinds.cmake; the fuzz target links them all,
// whole): a kind of the list without its block would go unfuzzed, so that stops the fuzzer at once.
void check_every_kind_registered() {
    std::string_view kinds = ZCPERF_FUZZ_KINDS;  // "mptcp,rdma,...", from common/kinds.cmake
    while (!kinds.empty()) {
        std::string_view kind = kinds.substr(0, kinds.find(','));
        kinds.remove_prefix(std::min(kinds.size(), kind.size() + 1));
        const auto& types = zc::kind_block_types();
        if (std::none_of(types.begin(), types.end(), [&](const zc::KindBlockType* t) { return kind == t->key; }))
            die("no report block registered for the kind", std::string(kind).c_str());
    }
}

}  // namespace

// ZCPERF_FUZZ_WRITE_CORPUS=DIR: write the seed corpus into DIR and exit (no fuzzing).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    check_every_kind_registered();
    if (const char* dir = std::getenv("ZCPERF_FUZZ_WRITE_CORPUS")) {
        try {
            zc::fuzz::write_seed_corpus(dir);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "zcperf_fuzz_protocol: %s\n", e.what());
            std::exit(1);
        }
        std::fprintf(stderr, "zcperf_fuzz_protocol: wrote %zu seeds to %s\n", zc::fuzz::seed_inputs().size(), dir);
        std::exit(0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::array<char, zc::kFrameHeaderSize> header{};
    std::memcpy(header.data(), data, size < header.size() ? size : header.size());
    check_header(header, zc::kMaxRequestBody);
    check_header(header, zc::kMaxReplyBody);
    if (size < header.size()) return 0;
    // The body as the peers see it: whatever followed the header, bounded like a real read.
    std::string_view body(reinterpret_cast<const char*>(data) + header.size(), size - header.size());
    if (body.size() > zc::kMaxReplyBody) return 0;
    check_body(body);
    return 0;
}
