#pragma once
// Kernel addresses -> function names, from /proc/kallsyms (modules' symbols included), read once per
// run, sorted, looked up by binary search.
#include <cstdint>
#include <string>
#include <vector>

namespace zc {

struct KernelSymbol {
    uint64_t address = 0;
    std::string name;
    std::string module;  // "" for the kernel image, else the module ("virtio_net", "rdma_rxe")
};

class KernelSymbols {
public:
    KernelSymbols() = default;
    // Reads a kallsyms file (text symbols only). Throws std::runtime_error when it cannot be read;
    // an unprivileged reader sees every address as 0: then empty() and hidden() are true.
    explicit KernelSymbols(const std::string& path);
    // The function containing `address`: the last symbol at or below it; nullptr below the first one
    // or above the end of the kernel's text (past the last symbol by more than kMaxFunctionBytes).
    const KernelSymbol* find(uint64_t address) const;
    size_t size() const { return symbols_.size(); }
    bool empty() const { return symbols_.empty(); }
    bool hidden() const { return hidden_; }
    // The index of a symbol in this table (for counting by function without copying names).
    size_t index_of(const KernelSymbol* s) const { return static_cast<size_t>(s - symbols_.data()); }
    const KernelSymbol& at(size_t i) const { return symbols_[i]; }

    static constexpr uint64_t kMaxFunctionBytes = 1 << 20;

private:
    std::vector<KernelSymbol> symbols_;
    bool hidden_ = false;
};

// Kernel addresses are in the upper half on every 64-bit architecture Linux runs on.
inline bool is_kernel_address(uint64_t ip) { return ip >= (1ull << 63); }

}  // namespace zc
