#pragma once
// One stream's loop, whichever transport and test built it: a concrete class whose run() holds the
// hot loop, built in place before the measured interval and run once. The holder calls it through
// one virtual call per stream (never per message), so a transport's operations table
// (kind/transport_ops.hpp) can build its own loop classes without a list of every path in the tree.
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/stream_counters.hpp"

namespace zc {

class HostBuffer;  // memory/host_buffer.hpp: only its address is passed on here

class StreamLoop {
public:
    StreamLoop() = default;
    StreamLoop(const StreamLoop&) = delete;
    StreamLoop& operator=(const StreamLoop&) = delete;

    // Builds P in place (paths own kernel objects that cannot move); the loop held before goes first,
    // so a path that reopens what its predecessor held finds it closed.
    template <class P, class... Args>
    P& emplace(Args&&... args) {
        held_.reset();
        auto held = std::make_unique<Held<P>>(std::forward<Args>(args)...);
        P& path = held->path;
        held_ = std::move(held);
        return path;
    }
    explicit operator bool() const { return held_ != nullptr; }

    // Runs the loop under the stop rule (an empty holder moved nothing).
    StreamCounters run(const StopRule& stop) { return held_ ? held_->run(stop) : StreamCounters{}; }
    // The loop's user-space data buffer, for reading back where its pages are; nullptr for loops
    // without one (sendfile's page cache, splice, trunc) and for an empty holder.
    const HostBuffer* buffer() const { return held_ ? held_->buffer() : nullptr; }

    // The loop as its class, or nullptr: for reading back what a path ran (its registration time,
    // its credit waits) and for tests that check which path was chosen.
    template <class P>
    P* get_if() const {
        auto* held = dynamic_cast<Held<P>*>(held_.get());
        return held ? &held->path : nullptr;
    }
    template <class P>
    bool holds() const {
        return get_if<P>() != nullptr;
    }

private:
    struct Base {
        virtual ~Base() = default;
        virtual StreamCounters run(const StopRule& stop) = 0;
        virtual const HostBuffer* buffer() const = 0;
    };
    template <class P>
    struct Held final : Base {
        template <class... Args>
        explicit Held(Args&&... args) : path(std::forward<Args>(args)...) {}
        StreamCounters run(const StopRule& stop) override { return path.run(stop); }
        const HostBuffer* buffer() const override {
            if constexpr (requires { path.buffer(); })
                return &path.buffer();
            else
                return nullptr;
        }
        P path;
    };
    std::unique_ptr<Base> held_;
};

}  // namespace zc
