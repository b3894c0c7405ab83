// Calls every method of the published lambda-cloud-node-api client against
// a live cloudplane and checks what comes back, so that compatibility with
// the Lambda API is judged by code nobody here wrote. lambdanode_test.go
// starts the server and runs this; by hand:
//
//   LAMBDA_API_BASE_URL=http://127.0.0.1:8080/api/v1 LAMBDA_API_KEY=cpk_... node check.mjs
//
// The account must be fresh (no SSH keys, filesystems or instances) and the
// server's rate limits off. Exits 1 on the first failed check.
import assert from "node:assert/strict";
import { LambdaCloudAPI } from "lambda-cloud-node-api";

const basePath = process.env.LAMBDA_API_BASE_URL;
const apiKey = process.env.LAMBDA_API_KEY;
if (!basePath || !apiKey) {
  console.error("set LAMBDA_API_BASE_URL (ending in /api/v1) and LAMBDA_API_KEY");
  process.exit(2);
}
const client = new LambdaCloudAPI({ apiKey, basePath });

// Every method the package has is called below; a version with more fails
// here until they are too.
const exercised = [
  "listInstanceTypes", "listRunningInstances", "getRunningInstance", "launchInstance",
  "terminateInstances", "restartInstances", "listSSHKeys", "addSSHKey", "deleteSSHKey",
  "listFileSystems",
];
const methods = Object.getOwnPropertyNames(LambdaCloudAPI.prototype).filter((m) => m !== "constructor");
assert.deepEqual([...methods].sort(), [...exercised].sort(), "the package's methods");

const missingID = "0123456789abcdef0123456789abcdef";
const publicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIISUCNXcEQ7xjHh9fGTsd28ksrv4ubO6qXeqEHkj3k61 laptop";

// rejection runs a call that must fail and returns the error envelope the
// package rejects with.
async function rejection(call) {
  try {
    await call();
  } catch (body) {
    assert.ok(body && body.error, `rejected with ${JSON.stringify(body)}, not an API error`);
    return body.error;
  }
  assert.fail("the call succeeded");
}

async function step(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (err) {
    // The package rejects with the API's error body, not an Error.
    console.error(`FAIL ${name}\n${err instanceof Error ? err.stack : JSON.stringify(err)}`);
    process.exit(1);
  }
}

let type, region;
await step("listInstanceTypes", async () => {
  const types = await client.listInstanceTypes();
  assert.equal(typeof types, "object");
  for (const [name, entry] of Object.entries(types)) {
    assert.equal(entry.instance_type.name, name);
    assert.equal(typeof entry.instance_type.price_cents_per_hour, "number");
    assert.equal(typeof entry.instance_type.specs.vcpus, "number");
    assert.ok(Array.isArray(entry.regions_with_capacity_available));
    if (!type && entry.regions_with_capacity_available.length > 0) {
      type = name;
      region = entry.regions_with_capacity_available[0].name;
    }
  }
  assert.ok(type, "no instance type has capacity anywhere");
});

await step("a wrong key is refused", async () => {
  const wrong = new LambdaCloudAPI({ apiKey: "cpk_wrong", basePath });
  assert.equal((await rejection(() => wrong.listSSHKeys())).code, "global/invalid-api-key");
});

let generated, added;
await step("listSSHKeys, addSSHKey", async () => {
  assert.deepEqual(await client.listSSHKeys(), []);
  generated = await client.addSSHKey({ name: "generated" });
  assert.equal(generated.name, "generated");
  assert.match(generated.private_key, /PRIVATE KEY/);
  assert.match(generated.public_key, /^ssh-/);
  added = await client.addSSHKey({ name: "laptop", public_key: publicKey });
  assert.equal(added.public_key.split(" ").slice(0, 2).join(" "), publicKey.split(" ").slice(0, 2).join(" "));
  assert.equal(added.private_key, undefined);
  const keys = await client.listSSHKeys();
  assert.deepEqual(keys.map((k) => k.id).sort(), [generated.id, added.id].sort());
  const refused = await rejection(() => client.addSSHKey({ name: "bad", public_key: "not a key" }));
  assert.equal(refused.code, "global/invalid-parameters");
});

// The package cannot create filesystems; one is made with plain fetch so
// that listFileSystems and a launch have something to show.
const filesystem = "node-client-data";
await step("listFileSystems", async () => {
  assert.deepEqual(await client.listFileSystems(), []);
  const res = await fetch(`${basePath}/filesystems`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: filesystem, region }),
  });
  assert.equal(res.status, 200, await res.text());
  const [fs, ...rest] = await client.listFileSystems();
  assert.equal(rest.length, 0);
  assert.equal(fs.name, filesystem);
  assert.equal(fs.mount_point, `/lambda/nfs/${filesystem}`);
  assert.equal(fs.region.name, region);
  assert.equal(fs.is_in_use, false);
  assert.equal(typeof fs.created_by.email, "string");
});

let id;
await step("launchInstance", async () => {
  const unknownKey = await rejection(() =>
    client.launchInstance({ region_name: region, instance_type_name: type, ssh_key_names: ["nope"], name: null }));
  assert.equal(unknownKey.code, "global/object-does-not-exist");
  const launched = await client.launchInstance({
    region_name: region, instance_type_name: type, ssh_key_names: ["laptop"],
    file_system_names: [filesystem], quantity: 1, name: "node-client",
  });
  assert.equal(launched.instance_ids.length, 1);
  id = launched.instance_ids[0];
});

await step("listRunningInstances, getRunningInstance", async () => {
  const all = await client.listRunningInstances();
  assert.deepEqual(all.map((i) => i.id), [id]);
  const inst = await client.getRunningInstance(id);
  assert.equal(inst.name, "node-client");
  assert.equal(inst.region.name, region);
  assert.equal(inst.instance_type.name, type);
  assert.deepEqual(inst.ssh_key_names, ["laptop"]);
  assert.deepEqual(inst.file_system_names, [filesystem]);
  assert.ok(["booting", "active"].includes(inst.status), inst.status);
  const missing = await rejection(() => client.getRunningInstance(missingID));
  assert.equal(missing.code, "global/object-does-not-exist");
});

await step("restartInstances", async () => {
  // Only an active instance restarts; the server boots them in moments.
  const deadline = Date.now() + 60_000;
  while ((await client.getRunningInstance(id)).status !== "active") {
    assert.ok(Date.now() < deadline, "the instance did not become active within 60 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  const { restarted_instances: restarted } = await client.restartInstances([id]);
  assert.deepEqual(restarted.map((i) => i.id), [id]);
  const missing = await rejection(() => client.restartInstances([missingID]));
  assert.equal(missing.code, "global/object-does-not-exist");
});

await step("terminateInstances", async () => {
  const { terminated_instances: terminated } = await client.terminateInstances([id]);
  assert.deepEqual(terminated.map((i) => i.id), [id]);
  assert.ok(["terminating", "terminated"].includes(terminated[0].status), terminated[0].status);
  const missing = await rejection(() => client.terminateInstances([missingID]));
  assert.equal(missing.code, "global/object-does-not-exist");
});

await step("deleteSSHKey", async () => {
  // The package resolves every DELETE to null, whatever the answer, so
  // the list says whether it worked.
  assert.equal(await client.deleteSSHKey(generated.id), null);
  assert.deepEqual((await client.listSSHKeys()).map((k) => k.id), [added.id]);
  assert.equal(await client.deleteSSHKey(missingID), null);
  assert.deepEqual((await client.listSSHKeys()).map((k) => k.id), [added.id]);
});

console.log("lambda-cloud-node-api: every method works against cloudplane");
