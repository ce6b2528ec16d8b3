#include "system/irq.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "system/cpu_list.hpp"

namespace zc {

namespace fs = std::filesystem;

uint64_t InterruptLine::total() const {
    uint64_t t = 0;
    for (uint64_t c : per_cpu) t += c;
    return t;
}

std::map<int, InterruptLine> parse_proc_interrupts(std::string_view text) {
    std::map<int, InterruptLine> out;
    size_t ncpus = 0;
    size_t pos = 0;
    bool header = true;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        pos = nl == std::string_view::npos ? text.size() : nl + 1;
        std::istringstream in{std::string(line)};
        if (header) {  // "           CPU0       CPU1"
            std::string w;
            while (in >> w) ncpus += w.rfind("CPU", 0) == 0;
            header = false;
            continue;
        }
        std::string first;
        if (!(in >> first) || first.empty() || first.back() != ':') continue;
        int irq = 0;
        auto [p, ec] = std::from_chars(first.data(), first.data() + first.size() - 1, irq);
        if (ec != std::errc() || p != first.data() + first.size() - 1) continue;  // NMI:, LOC:, ...
        InterruptLine l;
        l.irq = irq;
        for (size_t c = 0; c < ncpus; ++c) {
            uint64_t v = 0;
            if (!(in >> v)) break;
            l.per_cpu.push_back(v);
        }
        std::string word, last;
        while (in >> word) last = word;  // chip, hwirq, type, then the action name(s)
        l.name = last;
        out[irq] = std::move(l);
    }
    return out;
}

std::map<int, InterruptLine> read_proc_interrupts(const std::string& proc) {
    std::ifstream in(proc + "/interrupts");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_proc_interrupts(ss.str());
}

namespace {

bool carries_no_data(const std::string& name) {
    for (const char* s : {"-config", "async", "_cmd", "-event", "ctrl", "misc"})
        if (name.find(s) != std::string::npos) return true;
    return false;
}

}  // namespace

std::vector<int> device_irqs(const std::string& device_class, const std::string& name,
                             const std::map<int, InterruptLine>& interrupts, const std::string& sysfs) {
    std::vector<int> out;
    std::error_code ec;
    fs::path dev = fs::path(sysfs) / "class" / device_class / name / "device";
    if (!fs::exists(dev, ec)) return out;  // a virtual device has no interrupts of its own
    fs::path real = fs::canonical(dev, ec);
    // The MSI vectors live on the PCI function, which is the device itself or an ancestor (virtio).
    for (fs::path p = real; !ec && !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (!fs::exists(p / "msi_irqs", ec)) continue;
        for (const auto& e : fs::directory_iterator(p / "msi_irqs", ec)) {
            int irq = 0;
            std::string n = e.path().filename().string();
            if (std::from_chars(n.data(), n.data() + n.size(), irq).ec != std::errc()) continue;
            auto it = interrupts.find(irq);
            if (it != interrupts.end() && carries_no_data(it->second.name)) continue;
            out.push_back(irq);
        }
        break;
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int> rdma_device_irqs(const std::string& name, const std::map<int, InterruptLine>& interrupts,
                                  const std::string& sysfs) {
    std::vector<int> own = device_irqs("infiniband", name, interrupts, sysfs);
    if (!own.empty()) return own;
    std::ifstream in(fs::path(sysfs) / "class/infiniband" / name / "parent");
    std::string parent;
    if (!std::getline(in, parent) || parent.empty()) return {};
    return device_irqs("net", parent, interrupts, sysfs);
}

std::string read_irq_affinity(int irq, const std::string& proc) {
    std::ifstream in(proc + "/irq/" + std::to_string(irq) + "/smp_affinity_list");
    std::string s;
    std::getline(in, s);
    return s;
}

namespace {

// Writes a CPU list; returns 0 or the errno.
int write_affinity(const std::string& path, const std::string& list) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);  // TRUNC: for fixture files; procfs ignores it
    if (fd < 0) return errno;
    int err = ::write(fd, list.data(), list.size()) == static_cast<ssize_t>(list.size()) ? 0 : errno;
    ::close(fd);
    return err;
}

}  // namespace

IrqAffinityGuard::IrqAffinityGuard(const std::vector<int>& irqs, const std::vector<int>& cpus, const std::string& proc)
    : proc_(proc) {
    std::string list = format_cpu_list(cpus);
    for (int irq : irqs) {
        std::string was = read_irq_affinity(irq, proc_);
        if (was.empty()) throw std::runtime_error("cannot read the affinity of IRQ " + std::to_string(irq));
        originals_[irq] = was;
    }
    start_guardian();
    for (int irq : irqs) {
        std::string path = proc_ + "/irq/" + std::to_string(irq) + "/smp_affinity_list";
        if (int err = write_affinity(path, list)) {
            restore();
            stop_guardian();
            std::string why = std::strerror(err);
            // The file is root's (0644) and the kernel checks only that: root, or CAP_DAC_OVERRIDE.
            if (err == EACCES || err == EPERM) why += ": run as root or with CAP_DAC_OVERRIDE (zcserver.service)";
            if (err == EIO) why += ": the kernel manages this IRQ's affinity itself (managed IRQ)";
            throw std::runtime_error("cannot move IRQ " + std::to_string(irq) + " to CPUs " + list + " (" + why + ")");
        }
        changed_.push_back(irq);
    }
}

IrqAffinityGuard::~IrqAffinityGuard() {
    restore();
    stop_guardian();
}

void IrqAffinityGuard::restore() noexcept {
    for (int irq : changed_)
        write_affinity(proc_ + "/irq/" + std::to_string(irq) + "/smp_affinity_list", originals_[irq]);
    changed_.clear();
}

void IrqAffinityGuard::start_guardian() {
    // Everything the child needs is prepared before fork: after fork in a threaded process it may
    // only make async-signal-safe calls (open, write, read, close, _exit).
    std::vector<std::pair<std::string, std::string>> jobs;
    for (const auto& [irq, list] : originals_)
        jobs.emplace_back(proc_ + "/irq/" + std::to_string(irq) + "/smp_affinity_list", list);
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        ::close(p[0]);
        ::close(p[1]);
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::close(p[1]);
        ::setsid();  // its own session: signals for zcperf's process group do not reach it
        // Drop every other descriptor (data sockets must not outlive their owner here).
        if (p[0] != 3) {
            ::dup2(p[0], 3);
            ::close(p[0]);
        }
        ::syscall(SYS_close_range, 4u, ~0u, 0u);
        ::signal(SIGINT, SIG_IGN);  // a Ctrl-C meant for zcperf must not kill its guardian
        ::signal(SIGTERM, SIG_IGN);
        char c = 0;
        ssize_t n;
        do {
            n = ::read(3, &c, 1);
        } while (n < 0 && errno == EINTR);
        if (n == 1 && c == 'd') _exit(0);  // the owner restored everything itself
        for (const auto& [path, list] : jobs) {
            int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
            if (fd >= 0) {
                (void)!::write(fd, list.data(), list.size());
                ::close(fd);
            }
        }
        _exit(0);
    }
    ::close(p[0]);
    guardian_ = pid;
    guardian_pipe_ = p[1];
}

void IrqAffinityGuard::stop_guardian() noexcept {
    if (guardian_ <= 0) return;
    char done = 'd';
    (void)!::write(guardian_pipe_, &done, 1);
    ::close(guardian_pipe_);
    ::waitpid(guardian_, nullptr, 0);
    guardian_ = -1;
}

}  // namespace zc
