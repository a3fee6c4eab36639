"""{{name}}: an AgentJet workflow — an AgentScope agent that solves Countdown puzzles.

AgentJet creates ``CountdownWorkflow(name=...)`` for every episode and awaits
``execute(workflow_task, tuner)``. ``tuner.as_agentscope_model()`` is the model being trained,
as an AgentScope chat model. The answer, target and numbers go back in
``WorkflowOutput.metadata`` with ``reward=None``, so the judge in judge.py scores them.

config.yaml refers to it as ``{{name}}.workflow->CountdownWorkflow``.
"""
{{> tuner_workflow_import.py}}

SYSTEM_PROMPT = (
    "You solve Countdown puzzles: combine the given numbers with + - * / and parentheses, using each "
    "number exactly once, to reach the target. Show your calculation, then give the final equation "
    "in \\boxed{}, for example \\boxed{(1 + 2) * 3}."
)
MAX_ITERS = 2  # reasoning-acting iterations per episode


class CountdownWorkflow(Workflow):
    name: str = "{{name}}"

    async def execute(self, workflow_task: WorkflowTask, tuner: {{tuner}}) -> WorkflowOutput:
        from agentscope.agent import ReActAgent
        from agentscope.formatter import DashScopeChatFormatter
        from agentscope.memory import InMemoryMemory
        from agentscope.message import Msg

        puzzle = workflow_task.task.metadata  # the data row: target, nums
        target, nums = puzzle.get("target"), puzzle.get("nums") or []
        numbers = ", ".join(str(n) for n in nums)
        query = f"Target number: {target}\nAvailable numbers: {numbers}"
        agent = ReActAgent(
            name="{{name}}",
            sys_prompt=SYSTEM_PROMPT,
            model=tuner.as_agentscope_model(),  # the model being trained
            formatter=DashScopeChatFormatter(),
            memory=InMemoryMemory(),
            max_iters=MAX_ITERS,
        )
        agent.set_console_output_enabled(False)
        reply = await agent.reply(Msg("user", query, role="user"))
        answer = reply.get_text_content() or ""
        return WorkflowOutput(reward=None, metadata={"final_answer": answer, "target": target, "nums": nums})
