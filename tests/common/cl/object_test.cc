// The shared OpenCL object base: which handles a registry accepts, and when the two reference
// counts destroy an object.
#include "common/cl/object.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tests/common/log_capture.h"

namespace gsvirt::cl {
namespace {

// One object family of a toy implementation: records what was destroyed, and releases the internal
// reference a child holds on its parent, as real implementations do.
struct Node : Object {
  Node(const cl_icd_dispatch* table, Kind kind) : Object(table, kind) {}
  Node* parent = nullptr;
};

std::vector<Object*>* g_destroyed = nullptr;

void destroy_node(Object* object) {
  auto* node = static_cast<Node*>(object);
  g_destroyed->push_back(node);
  Node* parent = node->parent;
  delete node;
  if (parent) release_internal(parent);
}

class ObjectTest : public ::testing::Test {
 protected:
  ObjectTest() { g_destroyed = &destroyed_; }
  ~ObjectTest() override { g_destroyed = nullptr; }

  Node* make(Kind kind) {
    auto* node = new Node(&table_, kind);
    registry_.add(node);
    return node;
  }
  bool destroyed(const void* object) const {
    for (Object* o : destroyed_)
      if (o == object) return true;
    return false;
  }

  cl_icd_dispatch table_{};
  Registry registry_{&destroy_node};
  std::vector<Object*> destroyed_;
};

TEST_F(ObjectTest, DispatchIsTheFirstWordOfEveryHandle) {
  Node* context = make(Kind::kContext);
  EXPECT_EQ(*reinterpret_cast<cl_icd_dispatch**>(context), &table_);
  release_app(context);
}

TEST_F(ObjectTest, RegistryAcceptsOnlyLiveHandlesOfTheRightKind) {
  Node* mem = make(Kind::kMem);
  auto handle = reinterpret_cast<cl_mem>(mem);
  EXPECT_EQ(registry_.find(mem, Kind::kMem), mem);
  EXPECT_EQ(registry_.live(handle), handle);
  // The same object asked for as another kind: refused.
  EXPECT_EQ(registry_.find(mem, Kind::kContext), nullptr);
  EXPECT_EQ(registry_.live(reinterpret_cast<cl_context>(mem)), nullptr);
  EXPECT_EQ(registry_.find(nullptr, Kind::kMem), nullptr);
  // Garbage is answered without being read (this address holds no object).
  int not_an_object = 0;
  EXPECT_EQ(registry_.find(&not_an_object, Kind::kMem), nullptr);
  EXPECT_EQ(registry_.live_count(Kind::kMem), 1u);

  EXPECT_EQ(release_app(mem), CL_SUCCESS);
  // Stale: released and destroyed, so the registry no longer knows it.
  EXPECT_TRUE(destroyed(handle));
  EXPECT_EQ(registry_.live(handle), nullptr);
  EXPECT_EQ(registry_.live_count(Kind::kMem), 0u);
}

TEST_F(ObjectTest, AHandleOfAnotherImplementationIsForeign) {
  Registry other(&destroy_node);
  auto* theirs = new Node(&table_, Kind::kKernel);
  other.add(theirs);
  EXPECT_EQ(registry_.find(theirs, Kind::kKernel), nullptr);
  EXPECT_EQ(other.find(theirs, Kind::kKernel), theirs);
  release_app(theirs);
  EXPECT_TRUE(destroyed(theirs));
}

TEST_F(ObjectTest, NewObjectsHoldOneApplicationReference) {
  Node* queue = make(Kind::kQueue);
  EXPECT_EQ(queue->app_refs(), 1u);
  EXPECT_EQ(queue->internal_refs(), 0u);
  retain_app(queue);
  EXPECT_EQ(queue->app_refs(), 2u);
  EXPECT_EQ(release_app(queue), CL_SUCCESS);
  EXPECT_FALSE(destroyed(queue));
  EXPECT_EQ(release_app(queue), CL_SUCCESS);
  EXPECT_TRUE(destroyed(queue));
}

TEST_F(ObjectTest, InternalReferencesKeepAnObjectTheApplicationReleased) {
  Node* program = make(Kind::kProgram);
  Node* kernel = make(Kind::kKernel);
  kernel->parent = program;
  retain_internal(program);
  EXPECT_EQ(program->app_refs(), 1u) << "an internal hold is not the application's count";

  EXPECT_EQ(release_app(program), CL_SUCCESS);
  EXPECT_FALSE(destroyed(program));
  EXPECT_EQ(registry_.find(program, Kind::kProgram), program);
  // A release past the application's references is refused with the kind's handle error, not
  // taken from the kernel's hold.
  EXPECT_EQ(release_app(program), CL_INVALID_PROGRAM);
  EXPECT_FALSE(destroyed(program));

  // The kernel goes, and with it the last hold on the program.
  EXPECT_EQ(release_app(kernel), CL_SUCCESS);
  EXPECT_TRUE(destroyed(kernel));
  EXPECT_TRUE(destroyed(program));
  EXPECT_EQ(registry_.live_count(Kind::kProgram), 0u);
}

TEST_F(ObjectTest, ReleasingAnInternalReferenceNotHeldIsIgnoredAndLogged) {
  Node* event = make(Kind::kEvent);
  {
    gsvirt::testing::LogCapture log;
    release_internal(event);
    EXPECT_EQ(log.count("OpenCL event"), 1u);
  }
  EXPECT_FALSE(destroyed(event));
  EXPECT_EQ(event->app_refs(), 1u);
  release_app(event);
  EXPECT_TRUE(destroyed(event));
}

TEST_F(ObjectTest, PlatformsAndRootDevicesAreNotCounted) {
  Node* device = make(Kind::kDevice);
  retain_app(device);
  retain_internal(device);
  EXPECT_EQ(release_app(device), CL_SUCCESS);
  EXPECT_EQ(release_app(device), CL_SUCCESS);
  EXPECT_EQ(release_app(device), CL_SUCCESS);
  release_internal(device);
  EXPECT_FALSE(destroyed(device));
  EXPECT_EQ(registry_.find(device, Kind::kDevice), device);
  registry_.remove(device);
  EXPECT_EQ(registry_.find(device, Kind::kDevice), nullptr);
  delete device;
}

TEST_F(ObjectTest, TheLastReferenceOfEitherKindDestroysExactlyOnceAcrossThreads) {
  // An event released by the application on one thread while the runtime drops its hold on another.
  for (int round = 0; round < 200; ++round) {
    Node* event = make(Kind::kEvent);
    constexpr int kHolds = 64;
    for (int i = 0; i < kHolds; ++i) {
      retain_app(event);
      retain_internal(event);
    }
    std::thread app([event] {
      for (int i = 0; i <= kHolds; ++i) release_app(event);
    });
    std::thread runtime([event] {
      for (int i = 0; i < kHolds; ++i) release_internal(event);
    });
    app.join();
    runtime.join();
  }
  EXPECT_EQ(destroyed_.size(), 200u);
  EXPECT_EQ(registry_.live_count(Kind::kEvent), 0u);
}

TEST(KindTest, EveryKindHasANameAndAHandleError) {
  EXPECT_STREQ(kind_name(Kind::kQueue), "command queue");
  EXPECT_EQ(invalid_handle_error(Kind::kPlatform), CL_INVALID_PLATFORM);
  EXPECT_EQ(invalid_handle_error(Kind::kDevice), CL_INVALID_DEVICE);
  EXPECT_EQ(invalid_handle_error(Kind::kContext), CL_INVALID_CONTEXT);
  EXPECT_EQ(invalid_handle_error(Kind::kQueue), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(invalid_handle_error(Kind::kMem), CL_INVALID_MEM_OBJECT);
  EXPECT_EQ(invalid_handle_error(Kind::kSampler), CL_INVALID_SAMPLER);
  EXPECT_EQ(invalid_handle_error(Kind::kProgram), CL_INVALID_PROGRAM);
  EXPECT_EQ(invalid_handle_error(Kind::kKernel), CL_INVALID_KERNEL);
  EXPECT_EQ(invalid_handle_error(Kind::kEvent), CL_INVALID_EVENT);
  EXPECT_EQ(KindOf<cl_command_queue>::value, Kind::kQueue);
  EXPECT_EQ(KindOf<cl_event>::value, Kind::kEvent);
}

}  // namespace
}  // namespace gsvirt::cl
