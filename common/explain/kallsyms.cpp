#include "explain/kallsyms.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace zc {

KernelSymbols::KernelSymbols(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    std::string line;
    size_t zeros = 0;
    while (std::getline(in, line)) {
        // "ffffffffc0a01230 t virtnet_poll\t[virtio_net]"
        char* end = nullptr;
        uint64_t address = std::strtoull(line.c_str(), &end, 16);
        if (end == line.c_str() || *end != ' ' || end[1] == '\0' || end[2] != ' ') continue;
        char type = end[1];
        if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;  // functions only
        if (address == 0) {
            ++zeros;
            continue;
        }
        std::string_view rest(end + 3);
        size_t tab = rest.find('\t');
        KernelSymbol s;
        s.address = address;
        s.name = std::string(rest.substr(0, tab));
        if (tab != std::string_view::npos) {
            std::string_view mod = rest.substr(tab + 1);
            if (mod.size() >= 2 && mod.front() == '[' && mod.back() == ']') s.module = mod.substr(1, mod.size() - 2);
        }
        symbols_.push_back(std::move(s));
    }
    hidden_ = symbols_.empty() && zeros > 0;
    // Sorted by address; of several names at one address (aliases), the first read is kept.
    std::stable_sort(symbols_.begin(), symbols_.end(),
                     [](const KernelSymbol& a, const KernelSymbol& b) { return a.address < b.address; });
    symbols_.erase(std::unique(symbols_.begin(), symbols_.end(),
                               [](const KernelSymbol& a, const KernelSymbol& b) { return a.address == b.address; }),
                   symbols_.end());
}

const KernelSymbol* KernelSymbols::find(uint64_t address) const {
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                               [](uint64_t a, const KernelSymbol& s) { return a < s.address; });
    if (it == symbols_.begin()) return nullptr;
    --it;
    if (address - it->address > kMaxFunctionBytes) return nullptr;
    return &*it;
}

}  // namespace zc
