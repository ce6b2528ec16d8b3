#include "system/run_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace zc {

namespace {

// Makes `dir` (and its parents); with `shared`, everyone may add files (mode 01777, as /tmp).
bool make_dir(const std::string& dir, bool shared) {
    std::string path;
    std::istringstream parts(dir);
    for (std::string part; std::getline(parts, part, '/');) {
        if (part.empty()) continue;
        path += "/" + part;
        if (::mkdir(path.c_str(), shared ? 01777 : 0755) == 0 && shared) ::chmod(path.c_str(), 01777);  // past umask
    }
    return ::access(dir.c_str(), W_OK | X_OK) == 0;
}

}  // namespace

std::string host_run_dir(const std::string& sub) {
    std::string base;
    if (const char* env = std::getenv("ZCPERF_RUN_DIR"); env && *env) {
        base = env;
        if (!make_dir(base + "/" + sub, false))
            throw std::runtime_error("cannot use ZCPERF_RUN_DIR=" + base + " (" + std::strerror(errno) +
                                     "): point it at a directory this user may write");
        return base + "/" + sub;
    }
    if (make_dir("/run/zcperf", true) && make_dir("/run/zcperf/" + sub, true)) return "/run/zcperf/" + sub;
    base = "/tmp/zcperf-" + std::to_string(::getuid());
    if (make_dir(base + "/" + sub, false)) return base + "/" + sub;
    throw std::runtime_error("neither /run/zcperf nor " + base +
                             " can be written: set ZCPERF_RUN_DIR to a directory this user may write");
}

std::optional<LockedFile> LockedFile::try_lock(const std::string& path, bool create) {
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644));
    if (!fd && !create && errno == ENOENT) return std::nullopt;
    if (!fd) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    struct flock l {};
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    if (::fcntl(fd.get(), F_OFD_SETLK, &l) != 0) {
        if (errno == EAGAIN || errno == EACCES) return std::nullopt;
        throw std::runtime_error("cannot lock " + path + ": " + std::strerror(errno));
    }
    return LockedFile(std::move(fd));
}

void LockedFile::write(const std::string& text) const {
    if (::ftruncate(fd_.get(), 0) != 0 || ::pwrite(fd_.get(), text.data(), text.size(), 0) != ssize_t(text.size()))
        throw std::runtime_error(std::string("cannot write a lock file: ") + std::strerror(errno));
}

bool lock_is_held(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return false;
    struct flock l {};
    l.l_type = F_WRLCK;  // would a write lock conflict? Then someone holds one.
    l.l_whence = SEEK_SET;
    if (::fcntl(fd.get(), F_OFD_GETLK, &l) != 0) return false;
    return l.l_type != F_UNLCK;
}

std::string format_key_values(const KeyValues& kv) {
    std::string out;
    for (const auto& [k, v] : kv) out += k + "=" + v + "\n";
    return out;
}

KeyValues parse_key_values(const std::string& text) {
    KeyValues kv;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        auto eq = line.find('=');
        if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return kv;
}

std::string read_small_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file_atomically(const std::string& path, const std::string& text) {
    std::string tmp = path + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << text;
        if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0)
        throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
}

double wall_clock_s() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace zc
