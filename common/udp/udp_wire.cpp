#include "udp/udp_wire.hpp"

namespace zc {

std::string udp_size_problem(size_t bytes, size_t gso, size_t mtu_payload, bool need_header) {
    const std::string n = std::to_string(bytes);
    if (bytes > kMaxUdpDatagram) {
        return "-m " + n + " is over UDP's largest datagram, " + std::to_string(kMaxUdpDatagram) +
               " B (65535 less the IP and UDP headers); " +
               (gso ? "udp-gso and udp-msgzc hand at most that much to one call" : "give -m 65507 or less");
    }
    if (need_header && bytes < kUdpSeqHeader) {
        return "-m " + n + " is under " + std::to_string(kUdpSeqHeader) +
               " B: every UDP datagram carries a 16-byte sequence header (loss, reordering, jitter); give -m 16 "
               "or more";
    }
    if (!gso) return {};
    if (need_header && gso < kUdpSeqHeader)
        return "--gso-size " + std::to_string(gso) + " is under the 16-byte sequence header each segment carries";
    if (mtu_payload && gso > mtu_payload) {
        return "--gso-size " + std::to_string(gso) + " is over the path's largest segment payload, " +
               std::to_string(mtu_payload) + " B (the MTU less the IP and UDP headers); give --gso-size " +
               std::to_string(mtu_payload) + " or less";
    }
    size_t segs = segments_per_call(bytes, gso);
    if (segs > kMaxGsoSegments) {
        return "-m " + n + " in segments of --gso-size " + std::to_string(gso) + " makes " + std::to_string(segs) +
               " segments per call, over the kernel's limit of " + std::to_string(kMaxGsoSegments) +
               " (UDP_MAX_SEGMENTS): give a larger --gso-size or at most " + std::to_string(kMaxGsoSegments * gso) +
               " bytes per call";
    }
    return {};
}

}  // namespace zc
