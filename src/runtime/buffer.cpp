// Buffer, Arg and KernargBlock: the parts of the API that need no backend.
#include <fmt/format.h>

#include "cdna4/runtime.hpp"
#include "runtime/backend.hpp"

namespace cdna4 {
namespace {

detail::Allocation& checked(const std::shared_ptr<detail::Allocation>& alloc, size_t offset,
                            size_t bytes, const char* what) {
  if (!alloc) throw Error(fmt::format("{} on an empty Buffer", what));
  if (offset > alloc->size() || bytes > alloc->size() - offset)
    throw Error(fmt::format("{} of {} bytes at offset {} exceeds the buffer's {} bytes", what, bytes,
                            offset, alloc->size()));
  return *alloc;
}

}  // namespace

size_t Buffer::size() const { return alloc_ ? alloc_->size() : 0; }
uint64_t Buffer::address() const { return alloc_ ? alloc_->address() : 0; }

void Buffer::upload(const void* data, size_t bytes, size_t offset) {
  auto& alloc = checked(alloc_, offset, bytes, "upload");
  if (bytes) alloc.write(offset, data, bytes);  // an empty vector's data() may be null
}

void Buffer::download(void* data, size_t bytes, size_t offset) const {
  auto& alloc = checked(alloc_, offset, bytes, "download");
  if (bytes) alloc.read(offset, data, bytes);
}

void Buffer::fill_zero() {
  std::vector<uint8_t> zeros(size(), 0);
  if (alloc_) alloc_->write(0, zeros.data(), zeros.size());
}

Arg Arg::pointer(uint64_t address) {
  Arg arg(Kind::Pointer);
  arg.address_ = address;
  return arg;
}

Arg Arg::bytes(std::vector<uint8_t> raw) {
  Arg arg(Kind::Value);
  arg.bytes_ = std::move(raw);
  return arg;
}

KernargBlock& KernargBlock::put(size_t offset, const void* data, size_t n) {
  if (offset > bytes_.size() || n > bytes_.size() - offset)
    throw Error(fmt::format("kernarg block: {} bytes at offset {} do not fit its {} bytes", n, offset,
                            bytes_.size()));
  if (n) std::memcpy(bytes_.data() + offset, data, n);
  return *this;
}

KernargBlock& KernargBlock::pointer(size_t offset, uint64_t address) { return put(offset, address); }

KernargBlock& KernargBlock::pointer(size_t offset, const Buffer& buffer) {
  pointer(offset, buffer.address());
  buffers_.push_back(buffer);
  return *this;
}

}  // namespace cdna4
