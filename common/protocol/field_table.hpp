#pragma once
// Field tables: one line per wire field of a struct (its JSON name, the member, the range a decoded
// value must be in, and what a peer that leaves it out means), driving both JSON directions, so a
// parameter is declared once (neper's one-line flag definitions are the model). A table is a tuple
// built with number(), named(), cpu_list(), text(), object_list() and custom(); encode_fields/decode_fields walk it.
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "protocol/json_fields.hpp"
#include "protocol/wire_range.hpp"

namespace zc {

// A number or a bool, checked against [lo, hi] on decode. `absent`: the value a peer means by leaving
// the field out (one from before it existed); none: the field is required.
template <class S, class T>
struct NumberField {
    const char* name;
    T S::*member;
    T lo, hi;
    std::optional<T> absent;
};

// A value sent as its name (an enum, a buffer kind): `to` names it, `from` parses the name back and
// throws std::invalid_argument in the user's words. optional: absent keeps the member's default.
template <class S, class T, class To, class From>
struct NameField {
    const char* name;
    T S::*member;
    To to;
    From from;
    bool optional;
};

// A list of CPU numbers (at most 4096, each 0..65535).
template <class S>
struct CpuListField {
    const char* name;
    std::vector<int> S::*member;
};

// A string of at most max_bytes; `what` says what it is in the error. Optional: absent keeps "".
template <class S>
struct TextField {
    const char* name;
    std::string S::*member;
    size_t max_bytes;
    const char* what;
};

// A list of E, each element an object written and read by E's own field table; at most `max` entries.
// Optional: absent (an older peer, or nothing to list) leaves the member empty.
template <class S, class E, class Table>
struct ListField {
    const char* name;
    std::vector<E> S::*member;
    Table table;
    size_t max;
};

// A value of its own shape (a nested object keyed by names, pairs): `to(s)` gives the JSON value (a null
// one leaves the field out), `from(value, s)` reads it into s and throws ProtocolError on a bad one.
// Optional: absent leaves s as it is.
template <class S, class To, class From>
struct CustomField {
    const char* name;
    To to;
    From from;
    bool optional;
};

// The member's type is T; bounds and `absent` convert to it (no casts needed at the table).
template <class S, class T>
constexpr NumberField<S, T> number(const char* name, T S::*member, std::type_identity_t<T> lo,
                                   std::type_identity_t<T> hi,
                                   std::optional<std::type_identity_t<T>> absent = std::nullopt) {
    return {name, member, lo, hi, absent};
}
template <class S, class T, class To, class From>
constexpr NameField<S, T, To, From> named(const char* name, T S::*member, To to, From from, bool optional = false) {
    return {name, member, to, from, optional};
}
template <class S>
constexpr CpuListField<S> cpu_list(const char* name, std::vector<int> S::*member) {
    return {name, member};
}
template <class S>
constexpr TextField<S> text(const char* name, std::string S::*member, size_t max_bytes, const char* what) {
    return {name, member, max_bytes, what};
}

template <class S, class E, class Table>
constexpr ListField<S, E, Table> object_list(const char* name, std::vector<E> S::*member, Table table, size_t max) {
    return {name, member, table, max};
}
template <class S, class To, class From>
constexpr CustomField<S, To, From> custom(const char* name, To to, From from, bool optional = false) {
    return {name, to, from, optional};
}

template <class S, class Table>
void encode_fields(nlohmann::json& j, const S& s, const Table& table);
template <class S, class Table>
void decode_fields(const nlohmann::json& j, S& s, const Table& table);

namespace field_table_detail {

template <class S, class T>
void put(nlohmann::json& j, const S& s, const NumberField<S, T>& f) {
    j[f.name] = s.*f.member;
}
template <class S, class T, class To, class From>
void put(nlohmann::json& j, const S& s, const NameField<S, T, To, From>& f) {
    j[f.name] = f.to(s.*f.member);
}
template <class S>
void put(nlohmann::json& j, const S& s, const CpuListField<S>& f) {
    j[f.name] = s.*f.member;
}
template <class S>
void put(nlohmann::json& j, const S& s, const TextField<S>& f) {
    j[f.name] = s.*f.member;
}

template <class S, class E, class Table>
void put(nlohmann::json& j, const S& s, const ListField<S, E, Table>& f) {
    nlohmann::json a = nlohmann::json::array();
    for (const E& e : s.*f.member) {
        nlohmann::json o = nlohmann::json::object();
        encode_fields(o, e, f.table);
        a.push_back(std::move(o));
    }
    j[f.name] = std::move(a);
}
template <class S, class To, class From>
void put(nlohmann::json& j, const S& s, const CustomField<S, To, From>& f) {
    nlohmann::json v = f.to(s);
    if (!v.is_null()) j[f.name] = std::move(v);
}

template <class S, class T>
void get(const nlohmann::json& j, S& s, const NumberField<S, T>& f) {
    if (f.absent && !(j.is_object() && j.contains(f.name)))
        s.*f.member = *f.absent;
    else
        s.*f.member = field_in<T>(j, f.name, f.lo, f.hi);
}
template <class S, class T, class To, class From>
void get(const nlohmann::json& j, S& s, const NameField<S, T, To, From>& f) {
    if (f.optional && !(j.is_object() && j.contains(f.name))) return;
    std::string text = field<std::string>(j, f.name);
    try {
        s.*f.member = f.from(text);
    } catch (const std::invalid_argument& e) {
        throw ProtocolError(e.what());
    }
}
template <class S>
void get(const nlohmann::json& j, S& s, const CpuListField<S>& f) {
    auto it = j.is_object() ? j.find(f.name) : j.end();
    if (it == j.end() || !it->is_array() || it->size() > 4096) {
        throw ProtocolError(std::string("field '") + f.name + "' must be an array of at most 4096 CPU numbers");
    }
    std::vector<int> out;
    for (const auto& c : *it) {
        int cpu = value_as<int>(c, f.name);
        if (cpu < 0 || cpu > 65535) {
            throw ProtocolError(std::string("field '") + f.name + "' holds something that is not a CPU number");
        }
        out.push_back(cpu);
    }
    s.*f.member = std::move(out);
}
template <class S>
void get(const nlohmann::json& j, S& s, const TextField<S>& f) {
    if (!(j.is_object() && j.contains(f.name))) return;
    std::string v = field<std::string>(j, f.name);
    if (v.size() > f.max_bytes) throw ProtocolError(std::string("field '") + f.name + "' is longer than " + f.what);
    s.*f.member = std::move(v);
}

template <class S, class E, class Table>
void get(const nlohmann::json& j, S& s, const ListField<S, E, Table>& f) {
    auto it = j.is_object() ? j.find(f.name) : j.end();
    (s.*f.member).clear();
    if (it == j.end()) return;
    if (!it->is_array() || it->size() > f.max)
        throw ProtocolError(std::string("field '") + f.name + "' must be an array of at most " + std::to_string(f.max));
    for (const auto& o : *it) {
        E e{};
        decode_fields(o, e, f.table);
        (s.*f.member).push_back(std::move(e));
    }
}
template <class S, class To, class From>
void get(const nlohmann::json& j, S& s, const CustomField<S, To, From>& f) {
    auto it = j.is_object() ? j.find(f.name) : j.end();
    if (it == j.end()) {
        if (f.optional) return;
        throw ProtocolError(std::string("control message lacks field '") + f.name + "'");
    }
    f.from(*it, s);
}

template <class S, class T, class F>
void find_range(const F&, T S::*, std::optional<WireRange<T>>&) {}
template <class S, class T>
void find_range(const NumberField<S, T>& f, T S::*member, std::optional<WireRange<T>>& out) {
    if (f.member == member) out = WireRange<T>{f.lo, f.hi};
}

}  // namespace field_table_detail

// The range of the table's number field for `member` (throws std::logic_error when the table has none).
template <class S, class T, class Table>
WireRange<T> range_of(const Table& table, T S::*member) {
    std::optional<WireRange<T>> out;
    std::apply([&](const auto&... f) { (field_table_detail::find_range(f, member, out), ...); }, table);
    if (!out) throw std::logic_error("no number field for this member in the wire table");
    return *out;
}

template <class S, class Table>
void encode_fields(nlohmann::json& j, const S& s, const Table& table) {
    std::apply([&](const auto&... f) { (field_table_detail::put(j, s, f), ...); }, table);
}

// Throws ProtocolError naming the first field that is missing, of the wrong type or out of range.
template <class S, class Table>
void decode_fields(const nlohmann::json& j, S& s, const Table& table) {
    std::apply([&](const auto&... f) { (field_table_detail::get(j, s, f), ...); }, table);
}

}  // namespace zc
