// The rdma layer in a build without rdma-core (-DZCPERF_WITH_RDMA=OFF): only its headers are used
// (the capability rules read rdma/wire.hpp); no rsocket or RDMA connection is ever made, since the
// registry lists those transports as not in this build and paths/ has no operations table for them.
// This file is the layer's one translation unit, so that its library exists in every build.
namespace zc {}
