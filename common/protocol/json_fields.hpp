#pragma once
// Typed, bounded access to fields of a decoded control message: a missing field, a wrong type or a
// value out of range is a ProtocolError that names the field.
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/frame.hpp"

namespace zc {

// One JSON value as T: the type must match and an integer must fit T exactly (no silent
// truncation of 4294967297 to 1, no wrap of -1 to 2^64-1). `what` names it in the error.
template <typename T>
T value_as(const nlohmann::json& v, const std::string& what) {
    auto wrong = [&] { return ProtocolError("field '" + what + "' has the wrong type or is out of range"); };
    if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) throw wrong();
        return v.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
        if (v.is_number_unsigned()) {
            uint64_t u = v.get<uint64_t>();
            if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) throw wrong();
            return static_cast<T>(u);
        }
        if (!v.is_number_integer()) throw wrong();
        int64_t s = v.get<int64_t>();
        if constexpr (std::is_unsigned_v<T>) {
            if (s < 0) throw wrong();
            if (static_cast<uint64_t>(s) > static_cast<uint64_t>(std::numeric_limits<T>::max())) throw wrong();
        } else {
            if (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
                s > static_cast<int64_t>(std::numeric_limits<T>::max())) {
                throw wrong();
            }
        }
        return static_cast<T>(s);
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!v.is_number()) throw wrong();
        T d = v.get<T>();
        if (!std::isfinite(d)) throw wrong();
        return d;
    } else {
        static_assert(std::is_same_v<T, std::string>);
        if (!v.is_string()) throw wrong();
        return v.get<std::string>();
    }
}

template <typename T>
T field(const nlohmann::json& j, const char* name) {
    if (!j.is_object()) throw ProtocolError("control message is not a JSON object");
    auto it = j.find(name);
    if (it == j.end()) throw ProtocolError(std::string("control message lacks field '") + name + "'");
    return value_as<T>(*it, name);
}

template <typename T>
T field_in(const nlohmann::json& j, const char* name, T lo, T hi) {
    T v = field<T>(j, name);
    if (v < lo || v > hi) {
        throw ProtocolError(std::string("field '") + name + "' = " + nlohmann::json(v).dump() + " is outside [" +
                            nlohmann::json(lo).dump() + ", " + nlohmann::json(hi).dump() + "]");
    }
    return v;
}

template <typename T>
T field_or(const nlohmann::json& j, const char* name, T fallback) {
    if (!j.is_object() || !j.contains(name)) return fallback;
    return field<T>(j, name);
}

}  // namespace zc
