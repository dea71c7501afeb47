#include "tensor_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace skillrt::apic {
namespace {

constexpr size_t kInflateChunk = size_t{4} << 20;
// Pages behind the read position are dropped once this much has been consumed: the resident set
// of a mapped file stays near this size.
constexpr uint64_t kReleaseEvery = uint64_t{8} << 20;

std::string lower_ext(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot + 1);
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// A read-only mapping of a whole file; pages are released behind the consumer.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      throw TensorError("cannot open '" + path + "': " + std::strerror(errno) +
                        "; check the path in the case (expected/actual)");
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw TensorError("'" + path + "' is not a regular file; give the path of a tensor file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) {
        ::close(fd_);
        throw TensorError("cannot map '" + path + "': " + std::strerror(errno));
      }
      base_ = static_cast<const uint8_t*>(p);
      ::madvise(p, size_, MADV_SEQUENTIAL);
    }
  }
  ~MappedFile() {
    if (base_ != nullptr) ::munmap(const_cast<uint8_t*>(base_), size_);
    if (fd_ >= 0) ::close(fd_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return base_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Drops the pages wholly below `end` from the resident set (they are file-backed and clean).
  void release_below(uint64_t end) {
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t upto = end / page * page;
    if (upto <= released_) return;
    ::madvise(const_cast<uint8_t*>(base_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }

 private:
  std::string path_;
  int fd_ = -1;
  const uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
  uint64_t released_ = 0;
};

// Bytes of one stored region (npy, raw, stored npz member) or one deflated npz member.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Exactly n bytes unless the end comes first; returns the count.
  virtual size_t read(const uint8_t** p, size_t n) = 0;
};

class MappedSource : public ByteSource {
 public:
  MappedSource(std::shared_ptr<MappedFile> file, uint64_t begin, uint64_t length)
      : file_(std::move(file)), pos_(begin), end_(begin + length), since_release_(0) {}
  size_t read(const uint8_t** p, size_t n) override {
    const uint64_t take = std::min<uint64_t>(n, end_ - pos_);
    *p = file_->data() + pos_;
    pos_ += take;
    since_release_ += take;
    if (since_release_ >= kReleaseEvery) {
      // The previous chunk may still be in use by the caller (it holds the last pointer only).
      file_->release_below(pos_ - take);
      since_release_ = 0;
    }
    return static_cast<size_t>(take);
  }

 private:
  std::shared_ptr<MappedFile> file_;
  uint64_t pos_;
  uint64_t end_;
  uint64_t since_release_;
};

class InflateSource : public ByteSource {
 public:
  InflateSource(std::shared_ptr<MappedFile> file, uint64_t begin, uint64_t length, std::string name)
      : file_(std::move(file)), name_(std::move(name)) {
    std::memset(&zs_, 0, sizeof(zs_));
    if (inflateInit2(&zs_, -MAX_WBITS) != Z_OK) {
      throw TensorError("zlib could not start inflating " + name_);
    }
    in_pos_ = begin;
    in_end_ = begin + length;
  }
  ~InflateSource() override { inflateEnd(&zs_); }
  size_t read(const uint8_t** p, size_t n) override {
    if (buf_.size() < n) buf_.resize(n);
    size_t got = 0;
    while (got < n && !done_) {
      if (zs_.avail_in == 0 && in_pos_ < in_end_) {
        const uint64_t take = std::min<uint64_t>(in_end_ - in_pos_, kInflateChunk);
        zs_.next_in = const_cast<Bytef*>(file_->data() + in_pos_);
        zs_.avail_in = static_cast<uInt>(take);
        in_pos_ += take;
        file_->release_below(in_pos_ - take);
      }
      zs_.next_out = buf_.data() + got;
      zs_.avail_out = static_cast<uInt>(n - got);
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      got = n - zs_.avail_out;
      if (rc == Z_STREAM_END) {
        done_ = true;
      } else if (rc == Z_BUF_ERROR && zs_.avail_in == 0 && in_pos_ >= in_end_) {
        throw TensorError(name_ + ": deflate stream ends early (truncated archive); re-save it");
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw TensorError(name_ + ": corrupt deflate data (zlib " + std::to_string(rc) +
                          "); re-save the archive");
      }
    }
    *p = buf_.data();
    return got;
  }

 private:
  std::shared_ptr<MappedFile> file_;
  std::string name_;
  z_stream zs_;
  uint64_t in_pos_ = 0;
  uint64_t in_end_ = 0;
  bool done_ = false;
  std::vector<uint8_t> buf_;
};

// Elements out of a byte source: byte order fixed and storage reinterpretation applied.
class SourceStream : public TensorStream {
 public:
  SourceStream(TensorHeader header, std::unique_ptr<ByteSource> src, bool swap)
      : src_(std::move(src)), swap_(swap) {
    header_ = std::move(header);
    remaining_ = header_.count;
  }
  size_t next(const uint8_t** data, size_t max_elems) override {
    if (remaining_ == 0) return 0;
    const size_t es = dtype_size(header_.storage);
    const size_t want = static_cast<size_t>(std::min<uint64_t>(max_elems, remaining_));
    const uint8_t* p = nullptr;
    const size_t got = src_->read(&p, want * es);
    if (got != want * es) {
      throw TensorError(header_.source + ": data ends after " +
                        std::to_string(header_.count - remaining_ + got / es) + " of " +
                        std::to_string(header_.count) +
                        " elements (truncated file); re-save or re-copy it");
    }
    remaining_ -= want;
    if (!swap_ || es == 1) {
      *data = p;
      return want;
    }
    swapped_.resize(got);
    for (size_t i = 0; i < got; i += es) {
      for (size_t b = 0; b < es; ++b) swapped_[i + b] = p[i + es - 1 - b];
    }
    *data = swapped_.data();
    return want;
  }

 private:
  std::unique_ptr<ByteSource> src_;
  bool swap_;
  uint64_t remaining_ = 0;
  std::vector<uint8_t> swapped_;
};

// Fortran-ordered data read in logical (C) order. The element at C index (i0, ..., ik) sits at
// item i0 + d0 * (i1 + d1 * (i2 + ...)) of the data, so the stream walks the C index and keeps the
// Fortran offset in step. This needs random access: a mapped file is read in place (its pages are
// not released behind the reader), a deflated member is inflated whole first, into exactly the
// bytes its header declares. A complex item is its (re, im) pair, kept together.
class FortranStream : public TensorStream {
 public:
  FortranStream(TensorHeader header, std::vector<int64_t> dims, const uint8_t* data,
                std::shared_ptr<MappedFile> keep, std::vector<uint8_t> owned, bool swap)
      : dims_(std::move(dims)),
        keep_(std::move(keep)),
        owned_(std::move(owned)),
        data_(owned_.empty() ? data : owned_.data()),
        swap_(swap) {
    header_ = std::move(header);
    per_item_ = header_.complex ? 2 : 1;
    item_bytes_ = dtype_size(header_.storage) * per_item_;
    remaining_ = header_.count / per_item_;
    index_.assign(dims_.size(), 0);
    stride_.assign(dims_.size(), 1);
    for (size_t d = 1; d < dims_.size(); ++d) {
      stride_[d] = stride_[d - 1] * static_cast<uint64_t>(dims_[d - 1]);
    }
  }
  size_t next(const uint8_t** data, size_t max_elems) override {
    if (remaining_ == 0) return 0;
    const uint64_t items = std::min<uint64_t>(max_elems / per_item_, remaining_);
    if (items == 0) {
      throw std::logic_error(header_.source + ": complex data is read in whole (re, im) pairs");
    }
    buf_.resize(static_cast<size_t>(items) * item_bytes_);
    for (uint64_t j = 0; j < items; ++j) {
      std::memcpy(buf_.data() + j * item_bytes_, data_ + offset_ * item_bytes_, item_bytes_);
      advance();
    }
    remaining_ -= items;
    const size_t es = dtype_size(header_.storage);
    if (swap_ && es > 1) {
      for (size_t i = 0; i < buf_.size(); i += es)
        std::reverse(buf_.begin() + i, buf_.begin() + i + es);
    }
    *data = buf_.data();
    return static_cast<size_t>(items) * per_item_;
  }

 private:
  void advance() {
    for (size_t d = dims_.size(); d-- > 0;) {
      offset_ += stride_[d];
      if (++index_[d] < static_cast<uint64_t>(dims_[d])) return;
      offset_ -= stride_[d] * index_[d];
      index_[d] = 0;
    }
  }

  std::vector<int64_t> dims_;
  std::shared_ptr<MappedFile> keep_;
  std::vector<uint8_t> owned_;
  const uint8_t* data_;
  bool swap_;
  size_t per_item_ = 1;
  size_t item_bytes_ = 0;
  uint64_t remaining_ = 0;
  uint64_t offset_ = 0;
  std::vector<uint64_t> index_;
  std::vector<uint64_t> stride_;
  std::vector<uint8_t> buf_;
};

class MemoryStream : public TensorStream {
 public:
  MemoryStream(TensorHeader header, std::vector<double> values) : values_(std::move(values)) {
    header_ = std::move(header);
  }
  size_t next(const uint8_t** data, size_t max_elems) override {
    const size_t take = std::min(max_elems, values_.size() - pos_);
    *data = reinterpret_cast<const uint8_t*>(values_.data() + pos_);
    pos_ += take;
    return take;
  }

 private:
  std::vector<double> values_;
  size_t pos_ = 0;
};

// The element count of `shape` holding `elem_size`-byte elements. A negative dimension, or a count
// whose byte size does not fit in 64 bits, is an error: wrapped around, it would let a header
// promise more elements than the file holds and pass the size checks.
uint64_t element_count(const std::vector<int64_t>& shape, size_t elem_size,
                       const std::string& src) {
  uint64_t n = 1;
  uint64_t bytes = 0;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n) ||
        __builtin_mul_overflow(n, uint64_t{elem_size}, &bytes)) {
      throw TensorError(src + ": dimension " + std::to_string(d) +
                        (d < 0 ? " is negative" : " makes the size overflow 64 bits") +
                        "; the header is corrupt or the declared shape wrong");
    }
  }
  return n;
}

// The logical dtype a declared dtype gives to stored elements, or an error naming both.
DType resolve_logical(DType storage, const std::optional<DType>& declared, const std::string& src) {
  if (!declared || *declared == storage) return storage;
  const DType d = *declared;
  if (d == DType::kBFloat16 && (storage == DType::kUInt16 || storage == DType::kInt16)) return d;
  if (is_float(d) && is_float(storage)) return d;
  throw TensorError(src + ": declared dtype " + std::string(dtype_name(d)) +
                    " cannot be read from stored " + std::string(dtype_name(storage)) +
                    "; declare the stored dtype, or bfloat16 over uint16 bits");
}

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  uint64_t data_offset = 0;
};

std::string dict_value(const std::string& dict, const std::string& key) {
  const auto k = dict.find("'" + key + "'");
  if (k == std::string::npos) return "";
  auto c = dict.find(':', k);
  if (c == std::string::npos) return "";
  ++c;
  while (c < dict.size() && dict[c] == ' ') ++c;
  if (c >= dict.size()) return "";
  if (dict[c] == '\'') {
    const auto e = dict.find('\'', c + 1);
    return e == std::string::npos ? "" : dict.substr(c + 1, e - c - 1);
  }
  if (dict[c] == '(') {
    const auto e = dict.find(')', c);
    return e == std::string::npos ? "" : dict.substr(c, e - c + 1);
  }
  auto e = dict.find_first_of(",}", c);
  return dict.substr(c, e - c);
}

// Parses the header from the first bytes of a source; `src` names it in errors.
NpyHeader parse_npy_header(ByteSource& in, const std::string& src) {
  auto bad = [&](const std::string& what) {
    return TensorError(src + ": not a valid .npy file (" + what +
                       "); save it with numpy.save or give format raw with dtype and shape");
  };
  const uint8_t* p = nullptr;
  if (in.read(&p, 10) != 10) throw bad("shorter than the 10-byte preamble");
  if (std::memcmp(p, "\x93NUMPY", 6) != 0) throw bad("magic bytes missing");
  const int major = p[6];
  uint64_t hlen = 0;
  uint64_t pre = 10;
  if (major == 1) {
    hlen = static_cast<uint64_t>(p[8]) | (static_cast<uint64_t>(p[9]) << 8);
  } else if (major == 2 || major == 3) {
    const uint8_t b8 = p[8];
    const uint8_t b9 = p[9];
    const uint8_t* q = nullptr;
    if (in.read(&q, 2) != 2) throw bad("header length cut off");
    hlen = b8 | (uint64_t{b9} << 8) | (uint64_t{q[0]} << 16) | (uint64_t{q[1]} << 24);
    pre = 12;
  } else {
    throw bad("unknown format version " + std::to_string(major));
  }
  if (hlen > (1u << 20)) throw bad("header length " + std::to_string(hlen) + " is implausible");
  const uint8_t* h = nullptr;
  if (in.read(&h, hlen) != hlen) throw bad("header cut off");
  const std::string dict(reinterpret_cast<const char*>(h), hlen);
  NpyHeader out;
  out.data_offset = pre + hlen;
  out.descr = dict_value(dict, "descr");
  if (out.descr.empty()) throw bad("no 'descr' in the header");
  const std::string fortran = dict_value(dict, "fortran_order");
  if (fortran.empty()) throw bad("no 'fortran_order' in the header");
  out.fortran = fortran.find("True") != std::string::npos;
  const std::string shape = dict_value(dict, "shape");
  if (shape.empty() || shape.front() != '(') throw bad("no 'shape' tuple in the header");
  std::string num;
  for (size_t i = 1; i < shape.size(); ++i) {
    const char c = shape[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      num += c;
    } else if (c == ',' || c == ')') {
      if (!num.empty()) {
        int64_t dim = 0;
        const auto r = std::from_chars(num.data(), num.data() + num.size(), dim);
        if (r.ec != std::errc() || r.ptr != num.data() + num.size()) {
          throw bad("dimension " + num + " in shape '" + shape + "' is out of range");
        }
        out.shape.push_back(dim);
      }
      num.clear();
    } else if (c != ' ' && c != 'L') {
      throw bad("shape '" + shape + "' is not a tuple of integers");
    }
  }
  return out;
}

TensorHeader header_from_npy(const NpyHeader& h, const TensorSpec& spec, const std::string& src,
                             bool* swap) {
  TensorHeader out;
  out.source = src;
  out.fortran = h.fortran;
  out.shape = h.shape;
  std::string d = h.descr;
  const char order = d.empty() ? '<' : d[0];
  *swap = order == '>';
  const std::string kind = d.size() > 1 ? d.substr(1) : d;
  if (kind == "c8" || kind == "c16") {
    out.storage = kind == "c8" ? DType::kFloat32 : DType::kFloat64;
    out.complex = true;
    out.shape.push_back(2);
  } else if (kind == "V2" && spec.dtype == DType::kBFloat16) {
    out.storage = DType::kUInt16;
  } else {
    const auto t = parse_dtype(d);
    if (!t) {
      throw TensorError(src + ": dtype '" + d +
                        "' is not numeric (strings, objects and records are not compared); "
                        "save the numeric output tensor");
    }
    out.storage = *t;
  }
  out.logical = resolve_logical(out.storage, spec.dtype, src);
  out.count = element_count(out.shape, dtype_size(out.storage), src);
  return out;
}

struct ZipEntry {
  std::string name;
  uint16_t method = 0;
  uint64_t compressed = 0;
  uint64_t uncompressed = 0;
  uint64_t local_offset = 0;
};

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t u64(const uint8_t* p) { return u32(p) | (static_cast<uint64_t>(u32(p + 4)) << 32); }

std::vector<ZipEntry> zip_entries(const MappedFile& f) {
  const std::string& path = f.path();
  auto bad = [&](const std::string& what) {
    return TensorError(path + ": not a readable .npz/zip archive (" + what +
                       "); save it with numpy.savez or numpy.savez_compressed");
  };
  const uint8_t* b = f.data();
  const uint64_t n = f.size();
  if (n < 22) throw bad("too short for a zip directory");
  uint64_t eocd = n;
  const uint64_t lowest = n > 22 + 65535 ? n - 22 - 65535 : 0;
  for (uint64_t i = n - 22 + 1; i-- > lowest;) {
    if (u32(b + i) == 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd == n) throw bad("end-of-directory record missing");
  uint64_t entries = u16(b + eocd + 10);
  uint64_t cd_size = u32(b + eocd + 12);
  uint64_t cd_off = u32(b + eocd + 16);
  if (cd_off == 0xFFFFFFFFu || entries == 0xFFFF) {
    if (eocd < 20 || u32(b + eocd - 20) != 0x07064b50) throw bad("zip64 locator missing");
    const uint64_t z = u64(b + eocd - 20 + 8);
    if (z > n || n - z < 56 || u32(b + z) != 0x06064b50) {
      throw bad("zip64 directory record missing");
    }
    entries = u64(b + z + 32);
    cd_size = u64(b + z + 40);
    cd_off = u64(b + z + 48);
  }
  if (cd_off > n || cd_size > n - cd_off) {
    throw bad("central directory beyond the end of the file");
  }
  std::vector<ZipEntry> out;
  uint64_t p = cd_off;
  for (uint64_t i = 0; i < entries; ++i) {
    if (p + 46 > n || u32(b + p) != 0x02014b50) throw bad("directory entry " + std::to_string(i));
    ZipEntry e;
    e.method = u16(b + p + 10);
    e.compressed = u32(b + p + 20);
    e.uncompressed = u32(b + p + 24);
    const uint16_t name_len = u16(b + p + 28);
    const uint16_t extra_len = u16(b + p + 30);
    const uint16_t comment_len = u16(b + p + 32);
    e.local_offset = u32(b + p + 42);
    if (p + 46 + name_len + extra_len > n) throw bad("directory entry cut off");
    e.name.assign(reinterpret_cast<const char*>(b + p + 46), name_len);
    // zip64 extra field: 8-byte values for the fields that hold 0xFFFFFFFF, in this order.
    uint64_t x = p + 46 + name_len;
    const uint64_t x_end = x + extra_len;
    while (x + 4 <= x_end) {
      const uint16_t id = u16(b + x);
      const uint16_t len = u16(b + x + 2);
      if (id == 0x0001) {
        uint64_t q = x + 4;
        if (e.uncompressed == 0xFFFFFFFFu && q + 8 <= x_end) e.uncompressed = u64(b + q), q += 8;
        if (e.compressed == 0xFFFFFFFFu && q + 8 <= x_end) e.compressed = u64(b + q), q += 8;
        if (e.local_offset == 0xFFFFFFFFu && q + 8 <= x_end) e.local_offset = u64(b + q);
      }
      x += 4 + len;
    }
    out.push_back(std::move(e));
    p += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

// `in_archive`: the region is an .npz member (the header's format says npz, stored or deflated).
std::unique_ptr<TensorStream> open_npy_region(std::shared_ptr<MappedFile> file, uint64_t begin,
                                              uint64_t length, bool in_archive, bool deflated,
                                              uint64_t inflated_size, const TensorSpec& spec,
                                              const std::string& src) {
  std::unique_ptr<ByteSource> bytes;
  if (deflated) {
    bytes = std::make_unique<InflateSource>(file, begin, length, src);
  } else {
    bytes = std::make_unique<MappedSource>(file, begin, length);
  }
  const NpyHeader h = parse_npy_header(*bytes, src);
  bool swap = false;
  TensorHeader th = header_from_npy(h, spec, src, &swap);
  th.format = in_archive ? "npz" : "npy";
  const uint64_t need = th.count * dtype_size(th.storage);
  if (th.fortran && deflated) {
    // The archive's directory states the member's inflated size: never allocate beyond it. Nor
    // beyond what the member can inflate to (deflate expands at most 1032:1): the directory's
    // size is only the archive's claim.
    if (need > inflated_size || inflated_size - need < h.data_offset || need / 1032 > length) {
      throw TensorError(src + ": header promises " + std::to_string(need) +
                        " data bytes but the archive member inflates to " +
                        std::to_string(inflated_size) +
                        " bytes in all (corrupt archive); re-save it");
    }
    std::vector<uint8_t> whole(need);
    for (uint64_t got = 0; got < need;) {
      const uint8_t* p = nullptr;
      const size_t want = static_cast<size_t>(std::min<uint64_t>(need - got, kInflateChunk));
      const size_t n = bytes->read(&p, want);
      if (n == 0) {
        throw TensorError(src + ": data ends after " + std::to_string(got) + " of " +
                          std::to_string(need) + " bytes (truncated archive); re-save it");
      }
      std::memcpy(whole.data() + got, p, n);
      got += n;
    }
    return std::make_unique<FortranStream>(std::move(th), h.shape, nullptr, nullptr,
                                           std::move(whole), swap);
  }
  if (!deflated) {
    const uint64_t have = length - h.data_offset;
    if (have < need) {
      throw TensorError(src + ": header promises " + std::to_string(th.count) + " " +
                        std::string(dtype_name(th.storage)) + " elements (" + std::to_string(need) +
                        " bytes) but only " + std::to_string(have) +
                        " bytes follow (truncated file); re-save or re-copy it");
    }
    if (th.fortran) {
      const uint8_t* data = file->data() + begin + h.data_offset;
      return std::make_unique<FortranStream>(std::move(th), h.shape, data, file,
                                             std::vector<uint8_t>{}, swap);
    }
  }
  return std::make_unique<SourceStream>(std::move(th), std::move(bytes), swap);
}

// numpy's largest rank (NPY_MAXDIMS of numpy 2); deeper nesting would only exhaust the stack.
constexpr size_t kMaxJsonRank = 64;

void infer_json(const nlohmann::json& j, size_t depth, std::vector<int64_t>* shape,
                std::vector<double>* out, bool* all_bool, const std::string& src) {
  if (j.is_array()) {
    if (depth >= kMaxJsonRank) {
      throw TensorError(src + ": JSON array nested deeper than " + std::to_string(kMaxJsonRank) +
                        " levels; give a tensor of at most that rank");
    }
    if (shape->size() <= depth) {
      // A new axis after a scalar was read at a shallower depth: "[1, [2]]" is ragged.
      if (!out->empty()) {
        throw TensorError(src + ": ragged JSON array (an array at depth " + std::to_string(depth) +
                          " where a number was at depth " + std::to_string(shape->size()) +
                          "); give a rectangular nested array");
      }
      shape->push_back(static_cast<int64_t>(j.size()));
    } else if ((*shape)[depth] != static_cast<int64_t>(j.size())) {
      throw TensorError(src + ": ragged JSON array (axis " + std::to_string(depth) + " has " +
                        std::to_string(j.size()) + " and " + std::to_string((*shape)[depth]) +
                        " elements); give a rectangular nested array");
    }
    for (const auto& v : j) infer_json(v, depth + 1, shape, out, all_bool, src);
    return;
  }
  if (depth != shape->size()) {
    throw TensorError(src + ": scalar at depth " + std::to_string(depth) +
                      " in a nested array of rank " + std::to_string(shape->size()));
  }
  if (j.is_boolean()) {
    out->push_back(j.get<bool>() ? 1.0 : 0.0);
  } else if (j.is_number()) {
    *all_bool = false;
    out->push_back(j.get<double>());
  } else if (j.is_string()) {
    // JSON has no NaN or Infinity literals; dumps spell them as strings.
    *all_bool = false;
    const std::string s = j.get<std::string>();
    if (s == "nan" || s == "NaN") {
      out->push_back(std::nan(""));
    } else if (s == "inf" || s == "Infinity" || s == "+inf") {
      out->push_back(HUGE_VAL);
    } else if (s == "-inf" || s == "-Infinity") {
      out->push_back(-HUGE_VAL);
    } else {
      throw TensorError(src + ": string '" + s + "' in a JSON tensor (only nan/inf/-inf allowed)");
    }
  } else {
    throw TensorError(src + ": null or object inside a JSON tensor; give numbers only");
  }
}

std::unique_ptr<TensorStream> open_json(const TensorSpec& spec) {
  std::ifstream in(spec.path, std::ios::binary);
  if (!in) throw TensorError("cannot open '" + spec.path + "'; check the path in the case");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw TensorError(spec.path + ": not valid JSON (" + e.what() + ")");
  }
  if (j.is_object() && j.contains("data")) j = j["data"];
  TensorHeader h;
  h.source = spec.path;
  h.format = "json";
  std::vector<double> values;
  bool all_bool = true;
  if (!j.is_array()) {
    h.shape = {};
    infer_json(j, 0, &h.shape, &values, &all_bool, spec.path);
  } else {
    infer_json(j, 0, &h.shape, &values, &all_bool, spec.path);
  }
  h.storage = DType::kFloat64;
  if (spec.dtype) {
    h.logical = *spec.dtype;
  } else {
    h.logical = all_bool && !values.empty() ? DType::kBool : DType::kFloat64;
  }
  h.count = values.size();
  return std::make_unique<MemoryStream>(std::move(h), std::move(values));
}

}  // namespace

std::string resolve_format(const TensorSpec& spec) {
  if (spec.format != "auto" && !spec.format.empty()) return spec.format;
  const std::string e = lower_ext(spec.path);
  if (e == "npy" || e == "npz" || e == "json") return e;
  return "raw";
}

std::vector<std::string> npz_members(const std::string& path) {
  MappedFile f(path);
  std::vector<std::string> out;
  for (const ZipEntry& e : zip_entries(f)) {
    std::string n = e.name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".npy") == 0) n.resize(n.size() - 4);
    out.push_back(n);
  }
  return out;
}

std::unique_ptr<TensorStream> open_tensor(const TensorSpec& spec) {
  const std::string format = resolve_format(spec);
  std::unique_ptr<TensorStream> out;
  if (format == "json") {
    out = open_json(spec);
  } else if (format == "npy") {
    auto file = std::make_shared<MappedFile>(spec.path);
    out = open_npy_region(file, 0, file->size(), false, false, file->size(), spec, spec.path);
  } else if (format == "npz") {
    auto file = std::make_shared<MappedFile>(spec.path);
    const auto entries = zip_entries(*file);
    std::string want = spec.member;
    if (want.empty()) {
      if (entries.size() != 1) {
        std::string names;
        for (const auto& e : entries) names += (names.empty() ? "" : ", ") + e.name;
        throw TensorError(spec.path + " holds " + std::to_string(entries.size()) + " arrays (" +
                          names + "); name one with 'member'");
      }
      want = entries.front().name;
    }
    if (want.size() < 4 || want.compare(want.size() - 4, 4, ".npy") != 0) want += ".npy";
    const ZipEntry* hit = nullptr;
    for (const auto& e : entries) {
      if (e.name == want) hit = &e;
    }
    if (hit == nullptr) {
      throw TensorError(spec.path + ": no member '" + want + "'; list members with numpy.load");
    }
    if (hit->method != 0 && hit->method != 8) {
      throw TensorError(spec.path + ":" + want + ": zip method " + std::to_string(hit->method) +
                        " is neither stored nor deflate; re-save with numpy.savez[_compressed]");
    }
    const uint8_t* b = file->data();
    if (hit->local_offset > file->size() || file->size() - hit->local_offset < 30 ||
        u32(b + hit->local_offset) != 0x04034b50) {
      throw TensorError(spec.path + ":" + want + ": local zip header missing (corrupt archive)");
    }
    const uint64_t begin =
        hit->local_offset + 30 + u16(b + hit->local_offset + 26) + u16(b + hit->local_offset + 28);
    if (begin > file->size() || hit->compressed > file->size() - begin) {
      throw TensorError(spec.path + ":" + want + ": member data runs past the end (truncated)");
    }
    out = open_npy_region(file, begin, hit->compressed, true, hit->method == 8, hit->uncompressed,
                          spec, spec.path + ":" + want.substr(0, want.size() - 4));
  } else if (format == "raw") {
    const std::optional<DType> storage = spec.storage ? spec.storage : spec.dtype;
    if (!storage || !spec.shape) {
      throw TensorError(spec.path +
                        ": raw binary needs 'dtype' (or 'storage_dtype') and "
                        "'shape'; or save the tensor with numpy.save");
    }
    auto file = std::make_shared<MappedFile>(spec.path);
    TensorHeader h;
    h.source = spec.path;
    h.format = "raw";
    h.storage = *storage;
    h.logical = resolve_logical(*storage, spec.dtype, spec.path);
    h.shape = *spec.shape;
    h.count = element_count(h.shape, dtype_size(h.storage), spec.path);
    const uint64_t need = h.count * dtype_size(h.storage);
    if (spec.offset > file->size() || file->size() - spec.offset != need) {
      const uint64_t have = spec.offset > file->size() ? 0 : file->size() - spec.offset;
      throw TensorError(spec.path + ": " + std::to_string(have) + " data bytes but shape and " +
                        std::string(dtype_name(h.storage)) + " need " + std::to_string(need) +
                        "; check 'shape', 'dtype' and 'offset'");
    }
    auto bytes = std::make_unique<MappedSource>(file, spec.offset, need);
    out = std::make_unique<SourceStream>(std::move(h), std::move(bytes), spec.big_endian);
  } else {
    throw TensorError(spec.path + ": unknown format '" + format +
                      "'; use auto, npy, npz, raw or json");
  }
  if (spec.shape && format != "raw" && *spec.shape != out->header().shape) {
    throw TensorError(spec.path +
                      ": declared shape differs from the file's shape; drop 'shape' "
                      "or fix it");
  }
  return out;
}

}  // namespace skillrt::apic
