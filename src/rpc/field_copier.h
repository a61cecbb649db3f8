// FieldCopier: copies the fields a google.protobuf.FieldMask names from one message into
// another of the same type. Built once per request (paths resolved to descriptors), then
// used for every record the reply carries, so a query sends only what its output prints:
//   Expected<FieldCopier> c = FieldCopier::Build(JobInfo::descriptor(), req.fields());
//   c->Copy(job, reply.add_jobs());
// Paths follow FieldMask's rules: "spec.name" names a field of a message field; a
// repeated field may only end a path ("alloc", never "alloc.node"). An empty mask copies
// the whole message. A path that names no field is InvalidArgument.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/message.h>

#include <vector>

#include "common/status.h"

namespace sluice {

class FieldCopier {
 public:
  // `always`: paths copied whatever the mask says (what the server itself needs of the
  // records it sends); ignored when the mask is empty.
  static Expected<FieldCopier> Build(const google::protobuf::Descriptor* type,
                                     const google::protobuf::FieldMask& mask,
                                     const std::vector<std::string>& always = {});

  // `to` is expected to be empty (fields are set or appended, not cleared first).
  void Copy(const google::protobuf::Message& from, google::protobuf::Message* to) const;
  bool copies_everything() const { return everything_; }

 private:
  struct Node {
    const google::protobuf::FieldDescriptor* field = nullptr;
    std::vector<Node> children;  // empty: the whole field
  };
  Status Add(const google::protobuf::Descriptor* type, const std::string& path);
  static void CopyNodes(const std::vector<Node>& nodes, const google::protobuf::Message& from,
                        google::protobuf::Message* to);

  bool everything_ = true;
  std::vector<Node> root_;
};

}  // namespace sluice
