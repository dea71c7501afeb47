// The whole host function table (ABI v1) handed to plugins and to the worker that loads one.
#pragma once

#include <skillrt/abi.h>

namespace skillrt::host {

// Static storage: valid for the life of the process, safe to share between threads. Load-time
// entries forward to the plugin seam (the loader being run), call-time entries to the call
// handle's executor.
const skillrt_host_api* host_api();

}  // namespace skillrt::host
