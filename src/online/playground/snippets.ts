// "Insert Online-Training Client": the calls an agent needs to chat with a serve-mode explorer,
// reward the answers and commit, for the explorer the editor is connected to. Python with
// `openai` + `requests`, Python with Trinity's own TrinityClient, or Java in the style of
// AgentScope-Java's TrainingRunner (java.net.http, no extra dependency).

export type SnippetKind = 'python-openai' | 'python-trinity' | 'java';

export interface SnippetInput {
  explorerUrl: string;
  model: string;
}

const py = (s: string) => JSON.stringify(s);

export function snippet(kind: SnippetKind, i: SnippetInput): string {
  switch (kind) {
    case 'python-openai':
      return `# Online training against a Trinity-RFT explorer in serve mode (chat -> feedback -> commit).
import uuid

import requests
from openai import OpenAI

EXPLORER_URL = ${py(i.explorerUrl)}
client = OpenAI(base_url=f"{EXPLORER_URL}/v1", api_key="EMPTY")


def chat(messages, task_id):
    """One completion; its id is the msg_id the reward refers to."""
    resp = client.chat.completions.create(model=${py(i.model)}, messages=messages)
    return resp.id, resp.choices[0].message


def feedback(msg_ids, reward, task_id):
    """Reward completions; answers to one prompt share task_id so GRPO groups them."""
    r = requests.post(f"{EXPLORER_URL}/feedback", json={"msg_ids": msg_ids, "reward": reward, "task_id": task_id, "run_id": 0}, timeout=10)
    r.raise_for_status()


def commit():
    """Hand the rewarded experiences to the trainer (one explore step)."""
    requests.post(f"{EXPLORER_URL}/commit", timeout=60).raise_for_status()
    return requests.get(f"{EXPLORER_URL}/metrics", timeout=5).json()["explore_step_num"]


task_id = uuid.uuid4().hex[:8]
msg_id, message = chat([{"role": "user", "content": "Hello!"}], task_id)
feedback([msg_id], 1.0, task_id)
print("explore step", commit())
`;
    case 'python-trinity':
      return `# Online training with Trinity-RFT's own client (trinity.explorer.proxy.client).
from trinity.explorer.proxy.client import TrinityClient

trinity = TrinityClient(${py(i.explorerUrl)})
openai_client = trinity.get_openai_client()

resp = openai_client.chat.completions.create(model=${py(i.model)}, messages=[{"role": "user", "content": "Hello!"}])
# TrinityClient sends its own task_id (one per client instance) with each feedback
trinity.feedback(reward=1.0, msg_ids=[resp.id])
trinity.commit()
print(trinity.get_metrics())
`;
    case 'java':
      return `// Online training against a Trinity-RFT explorer in serve mode, in the style of
// AgentScope-Java's TrainingRunner: chat, reward the msg_id, commit. java.net.http only.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

public final class OnlineTrainingClient {
    private static final String EXPLORER_URL = ${JSON.stringify(i.explorerUrl)};
    private static final String MODEL = ${JSON.stringify(i.model)};
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** Returns the raw chat completion JSON; its "id" is the msg_id to reward. */
    public String chat(String messagesJson) throws Exception {
        String body = "{\\"model\\":\\"" + MODEL + "\\",\\"messages\\":" + messagesJson + "}";
        return post("/v1/chat/completions", body, Duration.ofMinutes(5));
    }

    /** Answers to one prompt share taskId so GRPO groups them. */
    public void feedback(String msgId, double reward, String taskId) throws Exception {
        post("/feedback", "{\\"msg_ids\\":[\\"" + msgId + "\\"],\\"reward\\":" + reward + ",\\"task_id\\":\\"" + taskId + "\\",\\"run_id\\":0}", Duration.ofSeconds(10));
    }

    /** Hands the rewarded experiences to the trainer. */
    public void commit() throws Exception {
        post("/commit", "", Duration.ofSeconds(60));
    }

    private String post(String path, String body, Duration timeout) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(EXPLORER_URL + path)).timeout(timeout)
            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> resp = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() >= 400) throw new IllegalStateException(path + " -> HTTP " + resp.statusCode() + ": " + resp.body());
        return resp.body();
    }
}
`;
  }
}

/** The snippet kind for a document language, when there is one. */
export function kindsFor(languageId: string): SnippetKind[] {
  if (languageId === 'java') return ['java'];
  if (languageId === 'python') return ['python-openai', 'python-trinity'];
  return ['python-openai', 'python-trinity', 'java'];
}
