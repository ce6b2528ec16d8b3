#pragma once
// Field tables: one line per wire field of a struct (its JSON name, the member, the range a decoded
// value must be in, and what a peer that leaves it out means), driving both JSON directions, so a
// parameter is declared once (neper's one-line flag definitions are the model). A table is a tuple
// built with number(), named(), cpu_list(), text(), str(), scaled(), object(), list(), custom(), flat(),
// derived() and spread(); encode_fields/decode_fields walk it, name_of/range_of look up a member's line.
// Decoding is bounded: every list has a maximum length, every nested object its own table, and anything
// else is a ProtocolError naming the field.
#include <cstddef>
#include <limits>
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

// How a value that is not a plain number crosses the wire (ValueField's codec):
//  - Scalar<T>: a number, bool or string, exactly typed (value_as); a string at most max_bytes long;
//  - Nested<T, Table>: an object whose fields are T's own table;
//  - Codec<T, To, From>: the value's own to/from functions (`from` may take the field's name too);
//  - List<Elem>: an array of at most `max` values, each one through Elem;
//  - Scaled<T>: a number sent in another unit (seconds as ms, ns as s), checked in the wire's unit.
template <class T>
struct Scalar {
    size_t max_bytes = std::numeric_limits<size_t>::max();  // strings: longer is refused
    nlohmann::json put(const T& v) const { return v; }
    T get(const nlohmann::json& v, const char* name) const {
        T out = value_as<T>(v, name);
        if constexpr (std::is_same_v<T, std::string>) {
            if (out.size() > max_bytes)
                throw ProtocolError(std::string("field '") + name + "' is longer than " + std::to_string(max_bytes) +
                                    " bytes");
        }
        return out;
    }
};
template <class T, class Table>
struct Nested {
    const Table* table;
    nlohmann::json put(const T& v) const;
    T get(const nlohmann::json& v, const char* name) const;
};
template <class T, class To, class From>
struct Codec {
    To to;
    From from;
    nlohmann::json put(const T& v) const { return to(v); }
    T get(const nlohmann::json& v, const char* name) const {
        if constexpr (std::is_invocable_v<From, const nlohmann::json&, const char*>)
            return from(v, name);
        else
            return from(v);
    }
};
template <class Elem>
struct List {
    size_t max;
    Elem elem;
    template <class V>
    nlohmann::json put(const V& v) const {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& e : v) a.push_back(elem.put(e));
        return a;
    }
    template <class V>
    V get(const nlohmann::json& v, const char* name) const {
        if (!v.is_array() || v.size() > max)
            throw ProtocolError(std::string("field '") + name + "' must be an array of at most " + std::to_string(max));
        V out;
        out.reserve(v.size());
        for (const auto& e : v) out.push_back(elem.get(e, name));
        return out;
    }
};

template <class T>
struct Scaled {
    double to_wire, from_wire;  // the member times to_wire is the wire's value; the wire's times from_wire, the member
    double lo, hi;              // the wire value's range
    nlohmann::json put(const T& v) const { return static_cast<double>(v) * to_wire; }
    T get(const nlohmann::json& v, const char* name) const {
        double d = value_as<double>(v, name);
        if (d < lo || d > hi) {
            throw ProtocolError(std::string("field '") + name + "' = " + nlohmann::json(d).dump() + " is outside [" +
                                nlohmann::json(lo).dump() + ", " + nlohmann::json(hi).dump() + "]");
        }
        return static_cast<T>(d * from_wire);
    }
};

// A member through a codec. optional: an absent field keeps the member's default (an older peer);
// `sent`: encoded only when it says so (nullptr: always); a field that is not always sent is optional.
template <class S, class T, class C>
struct ValueField {
    const char* name;
    T S::*member;
    C codec;
    bool optional = false;
    bool (*sent)(const S&) = nullptr;
};

// The fields of a member struct written into the same object as the outer one's (no nesting on the wire).
template <class S, class T, class Table>
struct FlatField {
    T S::*member;
    const Table* table;
};

// A value of the whole struct's own shape (a nested object keyed by names, pairs): `to(s)` gives the JSON
// value (a null one leaves the field out), `from(value, s)` reads it into s and throws ProtocolError on a
// bad one. Optional: absent leaves s as it is.
template <class S, class To, class From>
struct CustomField {
    const char* name;
    To to;
    From from;
    bool optional;
};

// Written for the reader only (a figure computed from the others), never decoded.
template <class S, class F>
struct DerivedField {
    const char* name;
    F value;  // (const S&) -> anything nlohmann::json takes
};

// Report-only keys whose names are known only at run time (--percentiles' labels): `add(s, j)` writes
// them into the struct's own object, after the fixed fields; never decoded.
template <class S, class F>
struct SpreadField {
    F add;
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
// Any value of T's type (a number without a range beyond its type's, a bool): required.
template <class S, class T>
constexpr NumberField<S, T> number(const char* name, T S::*member) {
    if constexpr (std::is_floating_point_v<T>)
        return {name, member, std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), std::nullopt};
    else
        return {name, member, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), std::nullopt};
}
// A required string (bounded by the frame's size only).
template <class S>
constexpr ValueField<S, std::string, Scalar<std::string>> str(const char* name, std::string S::*member) {
    return {name, member, {}};
}
// ... of at most max_bytes.
template <class S>
constexpr ValueField<S, std::string, Scalar<std::string>> str(const char* name, std::string S::*member,
                                                              size_t max_bytes) {
    return {name, member, {max_bytes}};
}
// An object with its own table: T's fields, decoded with T's ranges.
template <class S, class T, class Table>
constexpr ValueField<S, T, Nested<T, Table>> object(const char* name, T S::*member, const Table& table) {
    return {name, member, {&table}};
}
// A value through its own to_json / from_json functions.
template <class S, class T, class To, class From>
constexpr ValueField<S, T, Codec<T, To, From>> custom(const char* name, T S::*member, To to, From from) {
    return {name, member, {to, from}};
}
// A number in another unit on the wire: `to_wire` converts the member (e.g. 1e3: seconds sent as ms),
// `from_wire` back; a decoded value must lie in [lo, hi] of the wire's unit. Required.
template <class S, class T>
constexpr ValueField<S, T, Scaled<T>> scaled(const char* name, T S::*member, double to_wire, double from_wire,
                                             double lo, double hi) {
    return {name, member, {to_wire, from_wire, lo, hi}};
}
// A list of at most `max` numbers or strings.
template <class S, class T>
constexpr ValueField<S, std::vector<T>, List<Scalar<T>>> list(const char* name, std::vector<T> S::*member, size_t max) {
    return {name, member, {max, {}}};
}
// A list of at most `max` objects, each with T's table.
template <class S, class T, class Table>
constexpr ValueField<S, std::vector<T>, List<Nested<T, Table>>> list(const char* name, std::vector<T> S::*member,
                                                                     size_t max, const Table& table) {
    return {name, member, {max, {&table}}};
}
// A list of at most `max` values through their own to_json / from_json functions.
template <class S, class T, class To, class From>
constexpr ValueField<S, std::vector<T>, List<Codec<T, To, From>>> list(const char* name, std::vector<T> S::*member,
                                                                       size_t max, To to, From from) {
    return {name, member, {max, {to, from}}};
}
// Absent (an older peer): the member keeps its default.
template <class S, class T, class C>
constexpr ValueField<S, T, C> optional(ValueField<S, T, C> f) {
    f.optional = true;
    return f;
}
// Sent only when `sent(s)`: absent otherwise, and then decoded as the member's default.
template <class S, class T, class C>
constexpr ValueField<S, T, C> sent_if(bool (*sent)(const S&), ValueField<S, T, C> f) {
    f.optional = true;
    f.sent = sent;
    return f;
}
template <class S, class T, class Table>
constexpr FlatField<S, T, Table> flat(T S::*member, const Table& table) {
    return {member, &table};
}
template <class S, class F>
constexpr DerivedField<S, F> derived(const char* name, F value) {
    return {name, value};
}

template <class S, class F>
constexpr SpreadField<S, F> spread(F add) {
    return {add};
}

template <class S, class To, class From>
constexpr CustomField<S, To, From> custom(const char* name, To to, From from, bool optional = false) {
    return {name, to, from, optional};
}
template <class S>
constexpr TextField<S> text(const char* name, std::string S::*member, size_t max_bytes, const char* what) {
    return {name, member, max_bytes, what};
}

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

template <class S, class T, class C>
void put(nlohmann::json& j, const S& s, const ValueField<S, T, C>& f) {
    if (!f.sent || f.sent(s)) j[f.name] = f.codec.put(s.*f.member);
}
template <class S, class T, class Table>
void put(nlohmann::json& j, const S& s, const FlatField<S, T, Table>& f);
template <class S, class To, class From>
void put(nlohmann::json& j, const S& s, const CustomField<S, To, From>& f);
template <class S, class To, class From>
void get(const nlohmann::json& j, S& s, const CustomField<S, To, From>& f);
template <class S, class F>
void put(nlohmann::json& j, const S& s, const DerivedField<S, F>& f) {
    j[f.name] = f.value(s);
}

template <class S, class T, class C>
void get(const nlohmann::json& j, S& s, const ValueField<S, T, C>& f) {
    if (!j.is_object()) throw ProtocolError("control message is not a JSON object");
    auto it = j.find(f.name);
    if (it == j.end()) {
        if (f.optional) return;
        throw ProtocolError(std::string("control message lacks field '") + f.name + "'");
    }
    if constexpr (requires { f.codec.template get<T>(*it, f.name); })
        s.*f.member = f.codec.template get<T>(*it, f.name);
    else
        s.*f.member = f.codec.get(*it, f.name);
}
template <class S, class T, class Table>
void get(const nlohmann::json& j, S& s, const FlatField<S, T, Table>& f);
template <class S, class F>
void get(const nlohmann::json&, S&, const DerivedField<S, F>&) {}
template <class S, class F>
void put(nlohmann::json& j, const S& s, const SpreadField<S, F>& f) {
    f.add(s, j);
}
template <class S, class F>
void get(const nlohmann::json&, S&, const SpreadField<S, F>&) {}

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
        throw ProtocolError(std::string("field '") + f.name + "': " + e.what());
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

template <class F, class M>
void find_name(const F& f, M member, const char*& out) {
    if constexpr (requires {
                      f.name;
                      f.member;
                  }) {
        if constexpr (std::is_same_v<decltype(f.member), M>)
            if (f.member == member) out = f.name;
    }
}

template <class S, class T, class F>
void find_range(const F&, T S::*, std::optional<WireRange<T>>&) {}
template <class S, class T>
void find_range(const NumberField<S, T>& f, T S::*member, std::optional<WireRange<T>>& out) {
    if (f.member == member) out = WireRange<T>{f.lo, f.hi};
}

template <class S, class T, class Table>
void put(nlohmann::json& j, const S& s, const FlatField<S, T, Table>& f) {
    std::apply([&](const auto&... g) { (put(j, s.*f.member, g), ...); }, *f.table);
}
template <class S, class T, class Table>
void get(const nlohmann::json& j, S& s, const FlatField<S, T, Table>& f) {
    std::apply([&](const auto&... g) { (get(j, s.*f.member, g), ...); }, *f.table);
}

template <class S, class To, class From>
void put(nlohmann::json& j, const S& s, const CustomField<S, To, From>& f) {
    nlohmann::json v = f.to(s);
    if (!v.is_null()) j[f.name] = std::move(v);
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

}  // namespace field_table_detail

template <class T, class Table>
nlohmann::json Nested<T, Table>::put(const T& v) const {
    nlohmann::json j = nlohmann::json::object();
    std::apply([&](const auto&... f) { (field_table_detail::put(j, v, f), ...); }, *table);
    return j;
}
template <class T, class Table>
T Nested<T, Table>::get(const nlohmann::json& v, const char* name) const {
    if (!v.is_object()) throw ProtocolError(std::string("field '") + name + "' must be an object");
    T out{};
    std::apply([&](const auto&... f) { (field_table_detail::get(v, out, f), ...); }, *table);
    return out;
}

// The range of the table's number field for `member` (throws std::logic_error when the table has none).
template <class S, class T, class Table>
WireRange<T> range_of(const Table& table, T S::*member) {
    std::optional<WireRange<T>> out;
    std::apply([&](const auto&... f) { (field_table_detail::find_range(f, member, out), ...); }, table);
    if (!out) throw std::logic_error("no number field for this member in the wire table");
    return *out;
}

// The JSON name of the table's field for `member`, for what names the same figure elsewhere (a CSV column,
// a figure's key); throws std::logic_error when the table has none.
template <class S, class T, class Table>
const char* name_of(const Table& table, T S::*member) {
    const char* out = nullptr;
    std::apply([&](const auto&... f) { (field_table_detail::find_name(f, member, out), ...); }, table);
    if (!out) throw std::logic_error("no field for this member in the wire table");
    return out;
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

// The same as one value: an object of the table's fields, and S from one.
template <class S, class Table>
nlohmann::json encoded(const S& s, const Table& table) {
    nlohmann::json j = nlohmann::json::object();
    encode_fields(j, s, table);
    return j;
}
template <class S, class Table>
S decoded(const nlohmann::json& j, const Table& table) {
    S s{};
    decode_fields(j, s, table);
    return s;
}

}  // namespace zc
