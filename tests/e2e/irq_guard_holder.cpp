// Test helper: holds an IrqAffinityGuard until killed, so a test can prove that a kill -9 of the
// process that moved IRQs still puts them back (the guardian does), and that a second holder is
// refused or waits. The host's run directory is ZCPERF_RUN_DIR's (a fixture tree needs its own).
//   irq_guard_holder PROC_ROOT CPU IRQ [IRQ...]
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "system/irq.hpp"

int main(int argc, char** argv) {
    if (argc < 4) return 2;
    std::vector<int> irqs;
    for (int i = 3; i < argc; ++i) irqs.push_back(std::stoi(argv[i]));
    try {
        zc::IrqAffinityGuard guard(irqs, {std::stoi(argv[2])}, zc::IrqClaim{"irq_guard_holder", "", 0, ""}, argv[1]);
        std::printf("held\n");
        std::fflush(stdout);
        pause();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
