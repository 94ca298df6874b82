// tests/nvtx/nvtx_recorder.cpp — an NVTX injection library, what Nsight Systems loads in its place:
// NVTX_INJECTION64_PATH names it, NVTX dlopens it at the process's first NVTX call and calls
// InitializeInjectionNvtx2, which installs callbacks for range push / pop (plain and domain). Each
// push appends "push <name>" and each pop "pop" to the file $NVTX_RECORDER_FILE, one line per event,
// opened and closed per event so that nothing is lost when the process ends without tearing down.
// No GPU, no CUDA: NVTX v3 is header-only on the app's side.
#include <nvtx3/nvToolsExt.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace {

std::mutex g_mutex;  // NVTX calls may come from any thread; one line must not cut into another

void append(const std::string& line) {
  const char* path = std::getenv("NVTX_RECORDER_FILE");
  if (path == nullptr || *path == '\0') return;
  std::lock_guard<std::mutex> lock(g_mutex);
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const std::string text = line + "\n";
  [[maybe_unused]] const ssize_t written = write(fd, text.data(), text.size());
  close(fd);
}

int NVTX_API range_push_a(const char* message) {
  append(std::string("push ") + (message ? message : ""));
  return 0;
}

int NVTX_API range_push_ex(const nvtxEventAttributes_t* attributes) {
  const bool ascii =
      attributes && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII && attributes->message.ascii;
  append(std::string("push ") + (ascii ? attributes->message.ascii : ""));
  return 0;
}

int NVTX_API range_pop() {
  append("pop");
  return 0;
}

int NVTX_API domain_range_push_ex(nvtxDomainHandle_t, const nvtxEventAttributes_t* attributes) {
  return range_push_ex(attributes);
}

int NVTX_API domain_range_pop(nvtxDomainHandle_t) {
  return range_pop();
}

bool install(NvtxGetExportTableFunc_t get_export_table, NvtxCallbackModule module, unsigned int id,
             NvtxFunctionPointer function) {
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr) return false;
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (!callbacks->GetModuleFunctionTable(module, &table, &size) || table == nullptr || id >= size)
    return false;
  *table[id] = function;
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  const bool ok = install(get_export_table, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA,
                          reinterpret_cast<NvtxFunctionPointer>(&range_push_a)) &&
                  install(get_export_table, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx,
                          reinterpret_cast<NvtxFunctionPointer>(&range_push_ex)) &&
                  install(get_export_table, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop,
                          reinterpret_cast<NvtxFunctionPointer>(&range_pop)) &&
                  install(get_export_table, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx,
                          reinterpret_cast<NvtxFunctionPointer>(&domain_range_push_ex)) &&
                  install(get_export_table, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop,
                          reinterpret_cast<NvtxFunctionPointer>(&domain_range_pop));
  return ok ? 1 : 0;
}
