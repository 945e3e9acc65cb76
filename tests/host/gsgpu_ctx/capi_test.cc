// The gsgpu native context is one of the C API's built-in context types: a VMM (or the
// in-process transport) gets capset 17 and a working context without registering anything.
#include "gsvirt_renderer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "protocol/gsgpu_ctx/gsgpu_ctx_protocol.h"

namespace {

using namespace gsvirt::gsgpu_ctx::proto;

TEST(GsgpuCtxCApi, CapsetAndContextAreBuiltIn) {
  gsvirt_renderer_callbacks cb{GSVIRT_RENDERER_CALLBACKS_VERSION, nullptr};
  ASSERT_EQ(gsvirt_renderer_init(nullptr, 0, &cb), 0);
  uint32_t max_ver = 0, max_size = 0;
  gsvirt_renderer_get_cap_set(kCapsetId, &max_ver, &max_size);
  EXPECT_EQ(max_ver, kWireVersion);
  ASSERT_EQ(max_size, sizeof(Capset));
  Capset capset{};
  ASSERT_EQ(gsvirt_renderer_fill_caps(kCapsetId, kWireVersion, &capset), 0);
  EXPECT_EQ(std::string(capset.xml_hash, 32), std::string(kXmlHash));
  EXPECT_GT(capset.caps.num_rings, 0u);

  ASSERT_EQ(gsvirt_renderer_context_create_with_flags(1, kCapsetId, 4, "capi"), 0);
  gsvirt_renderer_resource_create_blob_args blob{};
  blob.res_handle = 1;
  blob.ctx_id = 1;
  blob.blob_mem = GSVIRT_RENDERER_BLOB_MEM_HOST3D;
  blob.blob_flags = GSVIRT_RENDERER_BLOB_FLAG_USE_MAPPABLE;
  blob.size = 4096;
  ASSERT_EQ(gsvirt_renderer_resource_create_blob(&blob), 0);
  ASSERT_EQ(gsvirt_renderer_ctx_attach_resource(1, 1), 0);
  void* map = nullptr;
  uint64_t size = 0;
  ASSERT_EQ(gsvirt_renderer_resource_get_map(1, &map, &size), 0);

  std::vector<uint8_t> s;
  SetResponseBufferReq rb{};
  rb.res_id = 1;
  rb.size = 4096;
  encode_set_response_buffer(s, 0, 0, rb);
  encode_get_caps(s, 5, kFencePageSize, GetCapsReq{});
  ASSERT_EQ(gsvirt_renderer_submit_cmd(s.data(), 1, int(s.size() / 4)), 0);
  GetCapsRsp rsp;
  std::memcpy(&rsp, static_cast<uint8_t*>(map) + kFencePageSize, sizeof rsp);
  EXPECT_EQ(rsp.seqno, 5u);
  EXPECT_EQ(rsp.status, 0);
  EXPECT_EQ(std::memcmp(&rsp.caps, &capset.caps, sizeof rsp.caps), 0);
  EXPECT_EQ(gsvirt_renderer_context_destroy(1), 0);
  gsvirt_renderer_cleanup(nullptr);
}

}  // namespace
