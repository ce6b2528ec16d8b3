#pragma once
// The files the --html page inlines, embedded at build time (cmake/embed_files.cmake writes
// html_assets.cpp from third_party/d3-flame-graph/ and common/html/page.*).
#include <cstddef>

namespace zc {

struct EmbeddedAsset {
    const unsigned char* data;
    size_t size;
};

extern const EmbeddedAsset kD3Js;                 // d3's dist/d3.min.js
extern const EmbeddedAsset kD3License;            // d3's LICENSE (ISC)
extern const EmbeddedAsset kD3FlameGraphJs;       // d3-flame-graph's dist/d3-flamegraph.umd.min.js
extern const EmbeddedAsset kD3FlameGraphLicense;  // d3-flame-graph's LICENSE (Apache-2.0)
extern const EmbeddedAsset kPageJs;               // common/html/page.js
extern const EmbeddedAsset kPageCss;              // common/html/page.css

}  // namespace zc
