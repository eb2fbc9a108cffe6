// Abstract types (python/types.h) and the framework table (python/frameworks.h), on real
// source text through the real parser.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "python/frameworks.h"
#include "python/parser.h"
#include "python/semantic_model.h"
#include "python/types.h"

using namespace stoker;
using namespace stoker::python;

namespace {

struct Typed {
  std::string src;
  ParsedModule module;
  Settings settings;
  SemanticModel model;
  explicit Typed(std::string text) : src(std::move(text)), module(src), model(src, module.root(), settings) {}

  // The last node whose text is `t` (uses after the definitions).
  Node find(std::string_view t) const {
    std::vector<Node> stack{module.root()};
    Node best{};
    while (!stack.empty()) {
      Node x = stack.back();
      stack.pop_back();
      if (text(x, src) == t && (is_null(best) || start(x) > start(best))) best = x;
      for (Node c : named_children(x)) stack.push_back(c);
    }
    REQUIRE(!is_null(best));
    return best;
  }
  AbstractType type(std::string_view t) const { return model.types().type_of(find(t)); }
  CudaAnswer cuda(std::string_view t) const { return model.types().cuda(find(t)); }
};

using K = AbstractType::Kind;

}  // namespace

TEST_CASE("the lattice: joins are least upper bounds") {
  auto t = [](K k, TypeDevice d = TypeDevice::Unresolved) { return AbstractType::of(k, d); };
  CHECK(join(t(K::None), t(K::Object)).kind == K::Object);  // an optional object
  CHECK(join(t(K::HostScalar), t(K::Object)).kind == K::Host);
  CHECK(join(t(K::Tensor, TypeDevice::Cpu), t(K::Tensor, TypeDevice::Cuda)).device == TypeDevice::Any);
  CHECK(join(t(K::Tensor, TypeDevice::Cuda), t(K::HostScalar)).kind == K::Unknown);
  CHECK(join(AbstractType::bottom(), t(K::Module, TypeDevice::Cuda)) == t(K::Module, TypeDevice::Cuda));
  CHECK(join(TypeDevice::Unresolved, TypeDevice::Cpu) == TypeDevice::Unresolved);
  CHECK(join(TypeDevice::Unresolved, TypeDevice::Cuda) == TypeDevice::Any);
  CHECK(cuda_answer(t(K::HostContainer, TypeDevice::Cuda)) == CudaAnswer::Cuda);
  CHECK(cuda_answer(t(K::HostContainer, TypeDevice::Cpu)) == CudaAnswer::Host);
  CHECK(cuda_answer(t(K::Tensor, TypeDevice::Unresolved)) == CudaAnswer::Undecided);
  CHECK(cuda_answer(t(K::Object)) == CudaAnswer::Host);
  CHECK(cuda_answer(AbstractType::unknown()) == CudaAnswer::Undecided);
}

TEST_CASE("types: host values, module outputs, unpacking paths") {
  Typed m(R"(import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
device = torch.device("cuda")
class Net(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.fc = nn.Linear(2, k)
class Meter:
    def __init__(self, it):
        self.it = it
    def __iter__(self):
        for v in self.it:
            yield v
net = Net(3)
net.to(device)
wrapped = DDP(Net(4), device_ids=[0])
out = net(torch.randn(2, 2))
pair = (out, out)
meter = Meter(enumerate(pair))
for idx, (a, b) in enumerate(zip(pair, range(3))):
    print(idx, a, b)
for j, elem in meter:
    print(j, elem)
n = len(pair)
width = net.k
w2 = wrapped(out)
flag = out.item() > 0
)");
  CHECK(m.type("net").kind == K::Module);
  CHECK(m.type("net").device == TypeDevice::Cuda);
  CHECK(m.cuda("out") == CudaAnswer::Cuda);
  CHECK(m.type("pair").kind == K::HostContainer);
  CHECK(m.type("idx").kind == K::HostScalar);
  CHECK(m.cuda("a") == CudaAnswer::Cuda);
  CHECK(m.type("b").kind == K::HostScalar);
  CHECK(m.type("j").kind == K::HostScalar);  // enumerate through a project iterator class
  CHECK(m.cuda("elem") == CudaAnswer::Cuda);
  CHECK(m.type("meter").kind == K::Object);
  CHECK(m.type("n").kind == K::HostScalar);
  CHECK(m.type("width").kind == K::HostScalar);  // an int attribute of a CUDA module
  CHECK(m.cuda("w2") == CudaAnswer::Cuda);       // DDP with device_ids
  CHECK(m.type("flag").kind == K::HostScalar);
}

TEST_CASE("types: comprehension variables, module outputs read as dicts, appended lists, torch ops") {
  Typed m(R"(import torch
import torch.nn as nn
model = nn.Linear(4, 4).cuda()
out = model(torch.randn(2, 4))
scaled = {k: v * 2 for k, v in out.items()}
total = sum(scaled.values())
first = out["loss"]
xs = []
xs.append(out)
stacked = torch.stack(xs)
labels = []
labels.append("a")
probs = torch.softmax(out, dim=-1)
def run(criterion: nn.Module, batch):
    return criterion(batch.cuda())
host = torch.stack(labels)
)");
  CHECK(m.cuda("total") == CudaAnswer::Cuda);  // values of a CUDA module's output dict
  CHECK(m.cuda("first") == CudaAnswer::Cuda);
  CHECK(m.cuda("stacked") == CudaAnswer::Cuda);
  CHECK(m.cuda("labels") == CudaAnswer::Host);  // appended strings only
  CHECK(m.cuda("probs") == CudaAnswer::Cuda);
  CHECK(m.cuda("criterion(batch.cuda())") == CudaAnswer::Cuda);  // an annotated module on CUDA inputs
  // A torch op on a host list gives no answer of its own (the taint decides), never "host".
  CHECK(m.cuda("torch.stack(labels)") == CudaAnswer::Undecided);
}

TEST_CASE("types: framework objects from the table") {
  Typed m(R"(import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
acc = Accelerator()
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(ds)
m2, o2, dl = acc.prepare(model, opt, loader)
dev = acc.device
for batch in dl:
    y = m2(batch)
    gn = acc.clip_grad_norm_(m2.parameters(), 1.0)
)");
  CHECK(m.model.uses_cuda());
  // The total norm of the clipped gradients is a tensor on the accelerator's device.
  CHECK(m.cuda("gn") == CudaAnswer::Cuda);
  CHECK(m.type("acc").kind == K::Object);
  CHECK(m.type("m2").kind == K::Module);
  CHECK(m.type("m2").device == TypeDevice::Cuda);
  CHECK(m.type("o2").kind == K::Optimizer);
  CHECK(m.type("dl").kind == K::Loader);
  CHECK(m.cuda("batch") == CudaAnswer::Cuda);
  CHECK(m.type("dev").kind == K::Device);
  CHECK(m.model.device_kind(m.find("dev")) == SemanticModel::DeviceKind::Cuda);
  // The prepared loader is the loader passed in: its loops are the DataLoader's.
  Node ctor = m.find("DataLoader(ds)");
  CHECK(m.model.loops_iterating(ctor).size() == 1);
}

TEST_CASE("types: a tokenizer's decode returns host strings, a module's decode a tensor") {
  Typed m(R"(import torch
from transformers import AutoTokenizer, LlamaTokenizer
tok = LlamaTokenizer.from_pretrained(path)
auto = AutoTokenizer.from_pretrained(path)
vae = torch.nn.Linear(2, 2).cuda()
out = torch.zeros(2, 8, device="cuda")
text = tok.decode(out[0], skip_special_tokens=True)
texts = auto.batch_decode(out)
z = vae.decode(out)
)");
  CHECK(m.type("tok").kind == K::Object);
  CHECK(m.type("auto").kind == K::Object);
  CHECK(m.cuda("text") == CudaAnswer::Host);
  CHECK(m.cuda("texts") == CudaAnswer::Host);
  CHECK_FALSE(m.model.is_cuda(m.find("text")));
  CHECK(m.model.is_cuda(m.find("z")));
}

TEST_CASE("types: library readers return host data, torchaudio's resampling computes where its input is") {
  Typed m(R"(import torch
import torchaudio
wave, sr = torchaudio.load(path)
info = torchaudio.info(path)
pair = torchaudio.load(path)
res = torchaudio.functional.resample(wave, orig_freq=sr, new_freq=44100)
resampler = torchaudio.transforms.Resample(orig_freq=sr, new_freq=44100)
left = resampler(wave)
batch = torch.zeros(2, 8, device="cuda")
gpu_res = torchaudio.functional.resample(batch, 16000, 44100)
gpu_left = resampler(batch)
)");
  CHECK(m.type("wave").kind == K::Tensor);
  CHECK(m.type("wave").device == TypeDevice::Cpu);
  CHECK(m.type("sr").kind == K::Host);
  CHECK(m.cuda("info") == CudaAnswer::Host);
  CHECK(m.type("pair").kind == K::HostContainer);
  CHECK(m.type("res").device == TypeDevice::Cpu);
  CHECK(m.type("resampler").kind == K::Object);
  CHECK(m.type("left").device == TypeDevice::Cpu);
  CHECK(m.type("gpu_res").device == TypeDevice::Cuda);
  CHECK(m.type("gpu_left").device == TypeDevice::Cuda);
  auto t = FrameworkTable::parse("host-function lib.read tensor,value\nhost-function lib.info value\n"
                                 "same-device-modules lib.Filter\n");
  REQUIRE(t.host_function("lib.read"));
  CHECK(t.host_function("lib.read")->tuple);
  CHECK(t.host_function("lib.read")->parts.size() == 2);
  CHECK_FALSE(t.host_function("lib.info")->tuple);
  CHECK(t.host_function("lib.other") == nullptr);
  CHECK(t.same_device_module(t.object_class("lib.Filter")));
  CHECK_THROWS_WITH(FrameworkTable::parse("host-function lib.read tensor,list\n"), Catch::Contains("line 1"));
}

TEST_CASE("types: a tokenizer's encoding with return_tensors=\"pt\" is CPU tensors, lists without it") {
  Typed m(R"(import torch
from transformers import AutoTokenizer
tok = AutoTokenizer.from_pretrained(path)
enc = tok(texts, padding=True, return_tensors="pt")
ids = enc.input_ids
mask = enc["attention_mask"]
one = tok.encode(text, return_tensors="pt")
lists = tok(texts, padding=True)
plain = lists.input_ids
moved = tok(texts, return_tensors="pt").to("cuda")
moved_ids = moved.input_ids
numpy_enc = tok(texts, return_tensors="np")
)");
  CHECK(m.type("enc").kind == K::HostContainer);
  CHECK(m.type("enc").tensors);
  CHECK(m.type("ids").kind == K::Tensor);
  CHECK(m.type("ids").device == TypeDevice::Cpu);
  CHECK(m.type("mask").kind == K::Tensor);
  CHECK(m.type("mask").device == TypeDevice::Cpu);
  CHECK(m.type("one").kind == K::Tensor);
  CHECK(m.type("one").device == TypeDevice::Cpu);
  CHECK(m.type("lists").kind == K::HostContainer);
  CHECK_FALSE(m.type("lists").tensors);
  CHECK(m.cuda("plain") != CudaAnswer::Cuda);
  CHECK(m.type("plain").kind != K::Tensor);
  CHECK(m.cuda("moved_ids") == CudaAnswer::Cuda);
  CHECK_FALSE(m.type("numpy_enc").tensors);
  CHECK(m.model.types().host_encoding(m.find("tok(texts, padding=True, return_tensors=\"pt\")")) == 2);
  CHECK(m.model.types().host_encoding(m.find("tok.encode(text, return_tensors=\"pt\")")) == 1);
  CHECK(m.model.types().host_encoding(m.find("tok(texts, padding=True)")) == 0);
}

TEST_CASE("the framework table: the embedded rows parse, bad rows name their line") {
  const auto& t = FrameworkTable::get();
  CHECK(t.rows() > 20);
  CHECK(t.uses_cuda("accelerate.Accelerator"));
  CHECK(t.prepares(t.object_class("accelerate.Accelerator"), "prepare"));
  CHECK(t.is_shape_sync("torchvision.ops.batched_nms"));
  REQUIRE(t.loader_config("transformers.TrainingArguments").size() == 3);
  CHECK(t.loader_config("transformers.TrainingArguments")[0].key == "dataloader_num_workers");
  CHECK(t.trainer_config_keyword("transformers.Trainer") == "args");
  // A new framework is new rows.
  auto extra = FrameworkTable::parse("object deepspeed.DeepSpeedEngine\nprepare deepspeed.DeepSpeedEngine wrap\n");
  CHECK(extra.prepares(extra.object_class("deepspeed.DeepSpeedEngine"), "wrap"));
  CHECK_THROWS_WITH(FrameworkTable::parse("# ok\nprepare only.two\n"), Catch::Contains("line 2"));
  CHECK_THROWS_AS(FrameworkTable::parse("frobnicate x\n"), std::runtime_error);
  // Families of classes by name (a package's tokenizers), and their host-result methods.
  int tok = t.object_class("transformers.LlamaTokenizer");
  CHECK(tok >= 0);
  CHECK(t.object_class("transformers.models.llama.tokenization_llama.LlamaTokenizer") == tok);
  CHECK(t.object_class("transformers.AutoTokenizer.from_pretrained") == tok);
  CHECK(t.returns_host(tok, "decode"));
  CHECK_FALSE(t.returns_host(tok, "encode"));
  CHECK(t.returns_host(t.object_class("transformers.GPT2TokenizerFast"), "batch_decode"));
  CHECK(t.returns_host(t.object_class("transformers.AutoProcessor.from_pretrained"), "batch_decode"));
  CHECK(t.object_class("transformers.RepetitionPenaltyLogitsProcessor") == -1);
  CHECK(t.object_class("transformers.AutoTokenizer.save_pretrained") == -1);
  CHECK(t.object_class("tokenizers.Tokenizer") == -1);
  CHECK(t.object_class("transformers.tokenizer") == -1);
  // Encodings into CPU tensors with `return_tensors="pt"`: a mapping for a call, a tensor for `encode`.
  REQUIRE(t.host_encoding(tok, "__call__"));
  CHECK(t.host_encoding(tok, "__call__")->keyword == "return_tensors");
  CHECK(t.host_encoding(tok, "__call__")->value == "pt");
  CHECK_FALSE(t.host_encoding(tok, "__call__")->tensor);
  REQUIRE(t.host_encoding(tok, "encode"));
  CHECK(t.host_encoding(tok, "encode")->tensor);
  CHECK(t.host_encoding(t.object_class("transformers.CLIPImageProcessor"), "__call__"));
  CHECK(t.host_encoding(tok, "decode") == nullptr);
  CHECK(t.host_encoding(-1, "__call__") == nullptr);
  CHECK_THROWS_WITH(FrameworkTable::parse("host-encoding x.Tok __call__ return_tensors pt list\n"),
                    Catch::Contains("tensor or mapping"));
  auto fam = FrameworkTable::parse("object-family gym Env make -VecEnv\nhost-result gym.*Env render\n");
  CHECK(fam.returns_host(fam.object_class("gym.envs.CartPoleEnv"), "render"));
  CHECK(fam.object_class("gym.CartPoleEnv.make") >= 0);
  CHECK(fam.object_class("gym.SubprocVecEnv") == -1);
  // Module wrappers: the keyword of the wrapped module and where the wrapper puts it.
  using Place = FrameworkTable::ModuleWrapper::Place;
  REQUIRE(t.module_wrapper("torch.distributed.fsdp.FullyShardedDataParallel"));
  CHECK(t.module_wrapper("torch.distributed.fsdp.FullyShardedDataParallel")->place == Place::Cuda);
  CHECK(t.module_wrapper("torch.nn.parallel.DistributedDataParallel")->place == Place::DeviceIds);
  CHECK(t.module_wrapper("torch.compile")->keyword == "model");
  CHECK(t.module_wrapper("torch.nn.Linear") == nullptr);
  auto wrap = FrameworkTable::parse("wraps-module deepspeed.initialize model cuda\n");
  CHECK(wrap.module_wrapper("deepspeed.initialize")->keyword == "model");
  CHECK_THROWS_WITH(FrameworkTable::parse("wraps-module x.Wrap module elsewhere\n"), Catch::Contains("placement"));
  // Step hooks: methods a framework calls per step, with the parameters it passes on its device.
  REQUIRE(t.step_hook("transformers.Trainer", "compute_loss"));
  CHECK(t.step_hook("transformers.Trainer", "compute_loss")->params.size() == 1);
  CHECK(t.step_hook("pytorch_lightning.LightningModule", "training_step"));
  // Lightning's hooks: only `self`, the module the Trainer put on its accelerator.
  REQUIRE(t.step_hook("pytorch_lightning.LightningModule", "training_step")->params.size() == 1);
  CHECK(t.step_hook("pytorch_lightning.LightningModule", "training_step")->params[0].first == "self");
  CHECK(t.step_hook("pytorch_lightning.LightningModule", "training_step")->params[0].second == StepHook::Arg::Module);
  CHECK(t.step_hook("transformers.Trainer", "evaluate") == nullptr);
  CHECK(t.step_hook_methods().count("prediction_step"));
  auto hook = FrameworkTable::parse("step-hook ray.train.Trainable step batch=batch net=module\n");
  REQUIRE(hook.step_hook("ray.train.Trainable", "step"));
  CHECK(hook.step_hook("ray.train.Trainable", "step")->params[1].first == "net");
  CHECK(hook.step_hook("ray.train.Trainable", "step")->params[1].second == StepHook::Arg::Module);
  CHECK_THROWS_WITH(FrameworkTable::parse("step-hook a.B step x=gpu\n"), Catch::Contains("NAME=module"));
  CHECK_THROWS_WITH(FrameworkTable::parse("step-hook a.B\n"), Catch::Contains("line 1"));
  // Iterators of host batches (and their classmethods returning several) and identity wrappers.
  CHECK(t.host_batches("torchtext.data.BucketIterator"));
  CHECK(t.host_batch_tuple("torchtext.data.BucketIterator.splits"));
  CHECK_FALSE(t.host_batch_tuple("torchtext.data.BucketIterator"));
  CHECK(t.identity("torch.autograd.Variable"));
  CHECK_FALSE(t.identity("torch.tensor"));
  auto iters = FrameworkTable::parse("host-batches dgl.dataloading.GraphDataLoader\nidentity mylib.wrap\n");
  CHECK(iters.host_batches("dgl.dataloading.GraphDataLoader"));
  CHECK_FALSE(iters.host_batch_tuple("dgl.dataloading.GraphDataLoader.splits"));
  CHECK(iters.identity("mylib.wrap"));
  CHECK_THROWS_WITH(FrameworkTable::parse("identity a.f extra\n"), Catch::Contains("line 1"));
  CHECK_THROWS_WITH(FrameworkTable::parse("host-batches\n"), Catch::Contains("line 1"));
  // torch.Tensor's methods (their in-place variants too, and private or special names) and the
  // held-value methods; any other method of a value typed a tensor says it is no tensor.
  CHECK(t.tensor_method("masked_fill"));
  CHECK(t.tensor_method("masked_fill_"));
  CHECK(t.tensor_method("new_zeros"));
  CHECK(t.tensor_method("__getitem__"));
  CHECK_FALSE(t.tensor_method("num_nodes"));
  CHECK_FALSE(t.tensor_method("num_nodes_"));
  CHECK_FALSE(t.tensor_method("sample"));
  CHECK(t.held_value_method("sample"));
  CHECK(t.held_value_method("items"));
  CHECK_FALSE(t.held_value_method("num_nodes"));
  auto methods = FrameworkTable::parse("tensor-methods frobnicate twiddle\nheld-value-methods lookup\n");
  CHECK(methods.tensor_method("twiddle_"));
  CHECK_FALSE(methods.tensor_method("abs"));
  CHECK(methods.held_value_method("lookup"));
  CHECK_THROWS_WITH(FrameworkTable::parse("# methods\ntensor-methods\n"), Catch::Contains("line 2"));
  // Functions of one tensor computing on its device (TX002 reads a host factory through them).
  CHECK(t.same_device_function("torch.log"));
  CHECK(t.same_device_function("torch.sqrt"));
  CHECK_FALSE(t.same_device_function("torch.tensor"));
  CHECK_FALSE(t.same_device_function("log"));
  auto fns = FrameworkTable::parse("same-device-functions mylib.scale\n");
  CHECK(fns.same_device_function("mylib.scale"));
  CHECK_FALSE(fns.same_device_function("torch.log"));
  CHECK_THROWS_WITH(FrameworkTable::parse("same-device-functions\n"), Catch::Contains("line 1"));
  // Library mapping classes built as `dict(...)` is (a batch's parts in a `Munch` are a dict batch).
  for (const char* q : {"munch.Munch", "easydict.EasyDict"}) CHECK(t.mapping_class(q));
  for (const char* q : {"builtins.dict", "Munch", "torch.log"}) CHECK_FALSE(t.mapping_class(q));
  CHECK(FrameworkTable::parse("mapping-classes mylib.Record\n").mapping_class("mylib.Record"));
  CHECK_THROWS_WITH(FrameworkTable::parse("mapping-classes\n"), Catch::Contains("line 1"));
}

TEST_CASE("types: a Hugging Face Trainer subclass's step hooks get the model on its device") {
  Typed m(R"(import torch
from transformers import Trainer
class T(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        out = model(**inputs)
        lab = inputs["labels"]
        return out
    def helper(self, model, inputs):
        other = model(**inputs)
        return other
)");
  CHECK(m.model.uses_cuda());
  CHECK(m.type("out").kind == K::Tensor);
  CHECK(m.type("out").device == TypeDevice::Any);
  // The inputs dict may carry host flags (`return_loss`): its items stay unknown.
  CHECK(m.type("lab").kind == K::Unknown);
  CHECK(m.type("other").kind != K::Tensor);
}
