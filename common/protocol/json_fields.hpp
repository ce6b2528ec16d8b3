#pragma once
// Typed, bounded access to fields of a decoded control message: a missing field, a wrong type or a
// value out of range is a ProtocolError that names the field.
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/frame.hpp"

namespace zc {

template <typename T>
T field(const nlohmann::json& j, const char* name) {
    if (!j.is_object()) throw ProtocolError("control message is not a JSON object");
    auto it = j.find(name);
    if (it == j.end()) throw ProtocolError(std::string("control message lacks field '") + name + "'");
    try {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if (!it->is_number_integer()) throw ProtocolError("");
        } else if constexpr (std::is_floating_point_v<T>) {
            if (!it->is_number()) throw ProtocolError("");
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!it->is_string()) throw ProtocolError("");
        } else if constexpr (std::is_same_v<T, bool>) {
            if (!it->is_boolean()) throw ProtocolError("");
        }
        return it->get<T>();
    } catch (const std::exception&) {
        throw ProtocolError(std::string("field '") + name + "' has the wrong type");
    }
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
