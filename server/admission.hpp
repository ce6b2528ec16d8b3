#pragma once
// Who may take a slot on zcserver: connections still in their handshake ("startups") are bounded
// apart from sessions, so idle or slow connections can never lock clients out of --max-sessions.
// Pure logic (no sockets, no clock): the Server asks, the Session holds the tickets it was given.
#include <array>
#include <cstdint>
#include <map>
#include <random>
#include <string>

namespace zc {

// --max-startups START:RATE:FULL (sshd's MaxStartups): below START in-handshake connections every new
// one is taken; from START on a new one is dropped with probability RATE % rising linearly to 100 %
// at FULL. A single number N means START = FULL = N (a hard bound).
struct StartupLimits {
    int start = 64;
    int rate_percent = 30;
    int full = 256;
    int per_source = 8;  // in-handshake connections from one address (one /64 for IPv6)

    std::string text() const;  // "64:30:256", as the option is written
};
// Throws std::invalid_argument saying what is wrong and what to write instead.
StartupLimits parse_max_startups(const std::string& text);

// The address a per-source limit counts by: an IPv4 address (also when IPv4-mapped in IPv6), or the
// /64 prefix of an IPv6 one (one host or LAN usually holds a whole /64).
struct SourceKey {
    std::array<uint8_t, 9> bytes{};  // [0] = 4 or 6, then the address (IPv4) or prefix (IPv6)
    bool operator<(const SourceKey& o) const { return bytes < o.bytes; }
    bool operator==(const SourceKey& o) const { return bytes == o.bytes; }
};
// From the 16 bytes of an IPv6 address (IPv4 arrives mapped, ::ffff:a.b.c.d, on a dual-stack socket).
SourceKey source_key_v6(const std::array<uint8_t, 16>& v6);
SourceKey source_key_v4(const std::array<uint8_t, 4>& v4);

class Admission {
public:
    enum class Verdict { admit, per_source, early_drop, full };

    // Releases its slot when destroyed; move-only. Empty (default) holds nothing.
    class Ticket {
    public:
        Ticket() = default;
        Ticket(Ticket&& o) noexcept : owner_(o.owner_), key_(o.key_), startup_(o.startup_) { o.owner_ = nullptr; }
        Ticket& operator=(Ticket&& o) noexcept;
        Ticket(const Ticket&) = delete;
        Ticket& operator=(const Ticket&) = delete;
        ~Ticket() { release(); }
        explicit operator bool() const { return owner_ != nullptr; }
        void release();

    private:
        friend class Admission;
        Ticket(Admission* owner, SourceKey key, bool startup) : owner_(owner), key_(key), startup_(startup) {}
        Admission* owner_ = nullptr;
        SourceKey key_{};
        bool startup_ = true;
    };

    Admission(StartupLimits limits, int max_sessions, uint64_t seed);

    // A new connection: a startup ticket, or empty with the reason in `verdict`.
    Ticket admit_startup(const SourceKey& source, Verdict& verdict);
    // A connection that finished its handshake: a session ticket, or empty when --max-sessions are taken.
    Ticket admit_session();

    // The chance (0..1) that a new connection is dropped with `startups` already in their handshake.
    double drop_probability(int startups) const;

    int startups() const { return startups_; }
    int startups_from(const SourceKey& source) const;
    int sessions() const { return sessions_; }
    size_t sources_tracked() const { return per_source_.size(); }  // bounded by startups()
    const StartupLimits& limits() const { return limits_; }
    int max_sessions() const { return max_sessions_; }

private:
    void release(const Ticket& t);

    StartupLimits limits_;
    int max_sessions_;
    std::mt19937_64 rng_;
    int startups_ = 0;
    int sessions_ = 0;
    std::map<SourceKey, int> per_source_;  // only sources with a startup in flight
};

}  // namespace zc
