#include "rdma/data_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "cuda/copy.hpp"
#include "cuda/dmabuf.hpp"

namespace zc {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string reg_dmabuf_error(int e, const std::string& device) {
    std::string s = std::string("ibv_reg_dmabuf_mr: ") + std::strerror(e);
    if (e == EOPNOTSUPP || e == ENOSYS) s += " (" + device + "'s driver cannot register dmabuf memory)";
    return s;
}

}  // namespace

const char* data_memory_mode_name(DataMemoryMode m) {
    switch (m) {
        case DataMemoryMode::host:
            return "host";
        case DataMemoryMode::staged:
            return "staged";
        case DataMemoryMode::direct:
            return "direct";
    }
    return "host";
}

std::string RdmaDataMemory::try_direct(ibv_pd* pd, const DataMemoryRequest& r) {
    if (r.where.simulated()) {
        // The test kind has no GPU and so no dmabuf: offer the registration a memfd of the right
        // size, so that what refuses it is the real provider and kernel (rxe: EOPNOTSUPP).
        UniqueFd fd(::memfd_create("zcperf-sim-gpu", MFD_CLOEXEC));
        if (!fd || ::ftruncate(fd.get(), static_cast<off_t>(r.data_bytes)) != 0)
            return std::string("memfd_create: ") + std::strerror(errno);
        ibv_mr* mr = ibv_reg_dmabuf_mr(pd, 0, r.data_bytes, 0, fd.get(), r.access);
        if (!mr) return reg_dmabuf_error(errno, r.device) + " (sim-gpu offered a memfd: it has no dmabuf)";
        ibv_dereg_mr(mr);
        return "sim-gpu has no GPU memory to register (ibv_reg_dmabuf_mr took a memfd, which is no GPU memory)";
    }
    gpu_.emplace(r.where.device, r.data_bytes);  // no device at all: an error for staged too, so it throws
    cuda::Dmabuf d = cuda::export_dmabuf(*gpu_);
    if (!d.fd) {
        gpu_.reset();
        return d.unavailable;
    }
    auto t0 = Clock::now();
    ibv_mr* mr =
        ibv_reg_dmabuf_mr(pd, d.offset, r.data_bytes, reinterpret_cast<uint64_t>(gpu_->data()), d.fd.get(), r.access);
    registration_ms_ += ms_since(t0);
    if (!mr) {
        int e = errno;
        gpu_.reset();
        return reg_dmabuf_error(e, r.device);
    }
    dmabuf_ = std::move(d.fd);
    data_mr_.reset(mr);
    data_ = gpu_->data();
    cuda::zero(data_, gpu_->allocated());  // a receiver's slot no message reached fails its final check
    registered_bytes_ += r.data_bytes;
    return "";
}

RdmaDataMemory::RdmaDataMemory(ibv_pd* pd, const DataMemoryRequest& r) {
    if (r.where.gpu_like()) {
        std::string what = buffer_spec_name(r.where);
        if (r.asked == GpuPath::staged) {
            mode_ = DataMemoryMode::staged;
            note_ = "staged: --gpu-path staged";
        } else {
            std::string why = try_direct(pd, r);
            if (why.empty()) {
                mode_ = DataMemoryMode::direct;
                note_ = "direct: " + what + "'s memory registered with ibv_reg_dmabuf_mr on " + r.device;
            } else if (r.asked == GpuPath::direct) {
                throw std::runtime_error("--gpu-path direct cannot be honoured: " + what + " on " + r.device + ": " +
                                         why +
                                         "; use --gpu-path staged (or auto, which stages when direct is refused)");
            } else {
                mode_ = DataMemoryMode::staged;
                note_ = "direct refused: " + why;
            }
        }
        if (mode_ == DataMemoryMode::staged && r.passive_source) {
            throw std::runtime_error(
                "rdma-read with " + what +
                " on the data source: the source is passive (the peer's NIC reads its memory "
                "while nothing of the source runs), so its GPU memory can only be read directly, and " +
                (r.asked == GpuPath::staged ? std::string("--gpu-path staged was asked for")
                                            : "direct was refused (" + note_.substr(note_.find(": ") + 2) + ")") +
                "; use -T rdma-write or rdma-send, or put the GPU memory on the reading side");
        }
    }
    // Host pages: data (unless it is in GPU memory) and control. Staged slots are pinned so the
    // GPU's copies overlap (cudaHostAlloc memory registers with ibv_reg_mr like any other).
    bool direct = mode_ == DataMemoryMode::direct;
    HostMemory kind = (r.where.kind == MemoryKind::pinned || (mode_ == DataMemoryMode::staged && r.where.on_gpu()))
                          ? HostMemory::pinned
                          : HostMemory::pageable;
    uint64_t data_bytes = direct                            ? 0
                          : mode_ == DataMemoryMode::staged ? std::max(r.data_bytes, r.staged_data_bytes)
                                                            : r.data_bytes;
    host_.emplace(data_bytes + r.ctrl_bytes, r.alignment < 4096 ? 4096 : r.alignment, kind);
    if (!direct) data_ = host_->data();
    ctrl_ = host_->data() + data_bytes;
    // Registration, once, before the interval; its cost is reported apart from the transfer.
    auto t0 = Clock::now();
    host_mr_.reset(ibv_reg_mr(pd, host_->data(), host_->size(), r.access));
    registration_ms_ += ms_since(t0);
    if (!host_mr_) {
        throw std::runtime_error(
            "ibv_reg_mr of " + std::to_string(host_->size()) + " bytes: " + std::strerror(errno) +
            (errno == ENOMEM || errno == EPERM ? " (locked-memory limit? try 'ulimit -l unlimited')" : ""));
    }
    registered_bytes_ += host_->size();
}

void RdmaDataMemory::write_data(uint64_t offset, const void* src, size_t n) const {
    if (mode_ == DataMemoryMode::direct)
        cuda::copy(data_ + offset, src, n);
    else
        std::memcpy(data_ + offset, src, n);
}

void RdmaDataMemory::read_data(void* dst, uint64_t offset, size_t n) const {
    if (mode_ == DataMemoryMode::direct)
        cuda::copy(dst, data_ + offset, n);
    else
        std::memcpy(dst, data_ + offset, n);
}

}  // namespace zc
