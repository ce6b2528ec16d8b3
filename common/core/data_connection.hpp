#pragma once
// One stream's data connection: a plain socket (a TCP or UDP kernel socket), or a connection of a type a
// kind owns (KindConnection), which this layer holds without knowing it. SideRunner holds one per stream;
// the data path is built on it once, before the measured interval.
#include <concepts>
#include <memory>
#include <utility>
#include <variant>

#include "core/unique_fd.hpp"

namespace zc {

// A kind's own connection type T, owned through a pointer and a table of the few calls this layer makes
// on it. There is one table per type, so the table's address also says which type is held: the kind's own
// code gets its T back with get_if<T>() (nullptr for any other type), once, when it builds a loop.
// T may define
//   void interrupt()       wakes a thread blocked on it, lets its close not wait for a vanished peer (abort:
//                          the peer vanished, Ctrl-C); without it, nothing is done;
//   int tcp_fd() const     the TCP socket under it (the tcp kind's loops and read-backs then run on it);
//                          without it, -1.
// Destroying a KindConnection runs T's destructor, once.
class KindConnection {
public:
    KindConnection() = default;
    template <class T>
    explicit KindConnection(std::unique_ptr<T> c) : c_(c.release()), table_(c_ ? &kTableOf<T> : nullptr) {}
    KindConnection(const KindConnection&) = delete;
    KindConnection& operator=(const KindConnection&) = delete;
    KindConnection(KindConnection&& o) noexcept
        : c_(std::exchange(o.c_, nullptr)), table_(std::exchange(o.table_, nullptr)) {}
    KindConnection& operator=(KindConnection&& o) noexcept {
        if (this != &o) {
            reset();
            c_ = std::exchange(o.c_, nullptr);
            table_ = std::exchange(o.table_, nullptr);
        }
        return *this;
    }
    ~KindConnection() { reset(); }

    explicit operator bool() const { return c_ != nullptr; }
    void interrupt() {
        if (c_) table_->interrupt(c_);
    }
    int tcp_fd() const { return c_ ? table_->tcp_fd(c_) : -1; }
    template <class T>
    T* get_if() {
        return c_ && table_ == &kTableOf<T> ? static_cast<T*>(c_) : nullptr;
    }
    template <class T>
    const T* get_if() const {
        return c_ && table_ == &kTableOf<T> ? static_cast<const T*>(c_) : nullptr;
    }
    void reset() {
        if (c_) table_->destroy(std::exchange(c_, nullptr));
        table_ = nullptr;
    }

private:
    struct Table {
        void (*destroy)(void* c);
        void (*interrupt)(void* c);
        int (*tcp_fd)(const void* c);
    };
    template <class T>
    static void destroy_as(void* c) {
        delete static_cast<T*>(c);
    }
    template <class T>
    static void interrupt_as(void* c) {
        if constexpr (requires { std::declval<T&>().interrupt(); }) static_cast<T*>(c)->interrupt();
    }
    template <class T>
    static int tcp_fd_as(const void* c) {
        if constexpr (requires {
                          { std::declval<const T&>().tcp_fd() } -> std::convertible_to<int>;
                      })
            return static_cast<const T*>(c)->tcp_fd();
        else
            return -1;
    }
    // An inline variable: one object per type in the whole program, whichever file instantiates it.
    template <class T>
    static constexpr Table kTableOf = {destroy_as<T>, interrupt_as<T>, tcp_fd_as<T>};

    void* c_ = nullptr;
    const Table* table_ = nullptr;
};

// A kind's connection made in place, as std::make_unique makes one.
template <class T, class... Args>
KindConnection make_kind_connection(Args&&... args) {
    return KindConnection(std::make_unique<T>(std::forward<Args>(args)...));
}

using DataConnection = std::variant<UniqueFd, KindConnection>;

// The kind's own connection of type T, else nullptr (a plain socket, another kind's type).
template <class T>
T* kind_connection_if(DataConnection& c) {
    auto* k = std::get_if<KindConnection>(&c);
    return k ? k->get_if<T>() : nullptr;
}
template <class T>
const T* kind_connection_if(const DataConnection& c) {
    const auto* k = std::get_if<KindConnection>(&c);
    return k ? k->get_if<T>() : nullptr;
}

// The TCP socket of the connection (a plain socket; the one under a kind's connection), else -1.
int tcp_fd(const DataConnection& c);
// Wakes a thread blocked on the connection (abort: the peer vanished, Ctrl-C): shutdown for a plain
// socket, the kind's own interrupt() for a kind's connection.
void interrupt(DataConnection& c);

}  // namespace zc
