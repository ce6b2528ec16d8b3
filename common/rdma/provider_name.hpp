#pragma once
// The driver behind an RDMA device, named as rdma-core names its provider ("mlx5", "rxe", "siw"):
// what decides whether the device has thread domains, BlueFlame, and which doorbell variables apply.
#include <infiniband/verbs.h>

#include <string>

namespace zc {

// Asks the kernel (RDMA netlink: the uverbs driver id, as libibverbs does to pick the provider);
// where that fails, the kernel driver of the device's parent (sysfs), else "unknown". Bounded: one
// netlink request with a 1 s receive timeout.
std::string provider_name(ibv_device* dev);

}  // namespace zc
