{{> safe_calculator.py}}


def calculate(expression: str):
    """Evaluate an arithmetic expression, e.g. "(48 / 2) + 48".

    Args:
        expression (str): numbers combined with + - * / // % ** and parentheses.
    """
    from agentscope.message import TextBlock
    from agentscope.tool import ToolResponse

    try:
        text = str(evaluate_arithmetic(expression))
    except ValueError as e:
        text = f"error: {e}"
    return ToolResponse(content=[TextBlock(type="text", text=text)])
