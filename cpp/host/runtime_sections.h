#pragma once

// The host runtime block's sections (Python source), one file per concern; runtime.cpp's
// runtime_source assembles those a module needs, in a fixed order, each starting with '\n'.
// kLaunchCore, kSpillStep and kLaunchOptions are one section (every launcher's launch), split at
// definitions and joined in that order.
namespace c2t::host::runtime_text {

extern const char* const kLaunchCore;  // runtime_launch.cpp
extern const char* const kLaunchOptions;  // runtime_launch.cpp
extern const char* const kLaunchConstants;  // runtime_launch.cpp
extern const char* const kSpillStep;  // runtime_spill.cpp
extern const char* const kTune;  // runtime_tune.cpp
extern const char* const kKMajor;  // runtime_k_major.cpp
extern const char* const kArrayLists;  // runtime_lists.cpp
extern const char* const kKernel;  // runtime_host_apis.cpp
extern const char* const kLaunch;  // runtime_host_apis.cpp
extern const char* const kOnStream;  // runtime_host_apis.cpp
extern const char* const kTimeout;  // runtime_host_apis.cpp
extern const char* const kByTarget;  // runtime_host_apis.cpp
extern const char* const kPrivateApis;  // runtime_host_apis.cpp
extern const char* const kTorchQueries;  // runtime_host_apis.cpp

}  // namespace c2t::host::runtime_text
